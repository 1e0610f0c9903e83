# A ppsynth server for the tests. Where PPSYNTH_TEST_URL is set (test/clients/r_client_test.ts
# sets it to the server it knitted the vignette on), that server, with the owner key (every
# scope) in PPSYNTH_TEST_OWNER_KEY and an analyst key (submit, read) of the same tenant in
# PPSYNTH_TEST_ANALYST_KEY. Otherwise `deno task serve` of the repository at PPSYNTH_REPO (or the
# repository this package sits in), on 127.0.0.1 and a free port, with a temporary store and
# keys made by `deno task keys create`; Deno is PPSYNTH_DENO when set, else `npx -y deno@2.9.6`.
# Without a repository (the data) or a server to use or start, the server tests are skipped,
# except under CI (CI=true), where they fail.

ppsynth_test_repo <- function() {
  repo <- Sys.getenv("PPSYNTH_REPO")
  if (nzchar(repo)) return(normalizePath(repo, mustWork = TRUE))
  dir <- normalizePath(getwd())
  repeat {
    if (file.exists(file.path(dir, "deno.json")) &&
        file.exists(file.path(dir, "src", "cli", "serve.ts"))) {
      return(dir)
    }
    parent <- dirname(dir)
    if (parent == dir) return("")
    dir <- parent
  }
}

ppsynth_test_deno <- function() {
  deno <- Sys.getenv("PPSYNTH_DENO")
  if (nzchar(deno)) return(list(command = deno, args = character(0)))
  npx <- Sys.which("npx")
  if (nzchar(npx)) return(list(command = npx, args = c("-y", "deno@2.9.6")))
  NULL
}

ppsynth_skip_without_server <- function() {
  testthat::skip_if_not_installed("processx")
  missing <- if (!nzchar(ppsynth_test_repo())) {
    "no ppsynth repository (set PPSYNTH_REPO)"
  } else if (!nzchar(Sys.getenv("PPSYNTH_TEST_URL")) && is.null(ppsynth_test_deno())) {
    "no Deno (set PPSYNTH_DENO, or put npx on the PATH)"
  } else {
    NULL
  }
  if (is.null(missing)) return(invisible(TRUE))
  if (identical(Sys.getenv("CI"), "true")) {
    stop("CI=true, but the server tests cannot run: ", missing)
  }
  testthat::skip(missing)
}

ppsynth_free_port <- function() {
  for (attempt in 1:100) {
    port <- sample(20000:60000, 1L)
    socket <- tryCatch(serverSocket(port), error = function(e) NULL)
    if (!is.null(socket)) {
      close(socket)
      return(port)
    }
  }
  stop("no free port found")
}

ppsynth_test_env <- new.env()

# The shared server (PPSYNTH_TEST_URL's, else started on first use and stopped when the tests
# end): its URL and an owner key (every scope) and an analyst key (submit, read) of one tenant.
ppsynth_test_server <- function() {
  ppsynth_skip_without_server()
  if (is.null(ppsynth_test_env$server)) {
    ppsynth_test_env$server <- if (nzchar(Sys.getenv("PPSYNTH_TEST_URL"))) {
      ppsynth_given_server()
    } else {
      ppsynth_started_server()
    }
  }
  ppsynth_test_env$server
}

# Whether the server at `url` answers /healthz with 200.
ppsynth_healthy <- function(url) {
  tryCatch({
    resp <- httr2::req_perform(httr2::req_error(httr2::request(paste0(url, "/healthz")),
                                                is_error = function(r) FALSE))
    httr2::resp_status(resp) == 200L
  }, error = function(e) FALSE)
}

# The running server named by PPSYNTH_TEST_URL and its two keys; an error where a key is
# missing or the server does not answer.
ppsynth_given_server <- function() {
  url <- sub("/+$", "", Sys.getenv("PPSYNTH_TEST_URL"))
  keys <- Sys.getenv(c("PPSYNTH_TEST_OWNER_KEY", "PPSYNTH_TEST_ANALYST_KEY"), unset = "")
  if (!all(nzchar(keys))) {
    stop("PPSYNTH_TEST_URL is set, but not PPSYNTH_TEST_OWNER_KEY and PPSYNTH_TEST_ANALYST_KEY")
  }
  if (!ppsynth_healthy(url)) stop("the server at PPSYNTH_TEST_URL (", url, ") does not answer")
  list(url = url, owner = keys[[1]], analyst = keys[[2]], repo = ppsynth_test_repo())
}

# `deno task serve` on a temporary store, with two keys made for it; stopped when the tests end.
ppsynth_started_server <- function() {
  repo <- ppsynth_test_repo()
  deno <- ppsynth_test_deno()
  dir <- tempfile("ppsynth_store_")
  dir.create(dir, mode = "0700")
  port <- ppsynth_free_port()
  env <- c("current", PPSYNTH_DATA_DIR = file.path(dir, "data"), PORT = as.character(port),
           PPSYNTH_HOST = "127.0.0.1", PPSYNTH_WORKERS = "2", PPSYNTH_RELEASE_DELAY_MS = "0",
           NO_COLOR = "1")
  key <- function(scopes, name) {
    out <- processx::run(deno$command,
                         c(deno$args, "task", "-q", "keys", "create", "--scopes", scopes,
                           "--name", name),
                         wd = repo, env = env, error_on_status = TRUE)
    trimws(out$stdout)
  }
  owner <- key("submit,read,diagnostics,admin", "r-owner")
  analyst <- key("submit,read", "r-analyst")
  log <- file.path(dir, "serve.log")
  process <- processx::process$new(deno$command, c(deno$args, "task", "serve"), wd = repo,
                                   env = env, stdout = log, stderr = "2>&1",
                                   cleanup_tree = TRUE)
  url <- paste0("http://127.0.0.1:", port)
  deadline <- Sys.time() + 180
  while (!ppsynth_healthy(url)) {
    if (!process$is_alive() || Sys.time() > deadline) {
      process$kill_tree()
      stop("the server did not start:\n", paste(readLines(log), collapse = "\n"))
    }
    Sys.sleep(0.5)
  }
  withr::defer({
    process$kill_tree()
    unlink(dir, recursive = TRUE)
    ppsynth_test_env$server <- NULL
  }, envir = testthat::teardown_env())
  list(url = url, owner = owner, analyst = analyst, repo = repo, process = process, dir = dir)
}

# The bundled ACS excerpt (examples/crc) without INDP, whose 233 levels the committed schema
# read from the data ("source": "data", refused at registration), and the rules naming it.
ppsynth_test_acs <- function(repo, rows = NULL) {
  crc <- file.path(repo, "examples", "crc")
  schema <- ppsynth_schema_drop(file.path(crc, "ma2019.schema.json"), "INDP")
  data <- suppressMessages(ppsynth_read_csv(file.path(crc, "ma2019.csv"), schema))
  if (!is.null(rows)) data <- data[rows, , drop = FALSE]
  list(data = data, schema = schema)
}
