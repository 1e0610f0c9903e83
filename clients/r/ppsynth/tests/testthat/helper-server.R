# A ppsynth server for the tests: `deno task serve` of the repository at PPSYNTH_REPO (or the
# repository this package sits in), on 127.0.0.1 and a free port, with a temporary store and
# keys made by `deno task keys create`. Deno is PPSYNTH_DENO when set, else `npx -y deno@2.9.6`.
# Without a repository or Deno the server tests are skipped, except under CI (CI=true), where
# they fail.

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
  } else if (is.null(ppsynth_test_deno())) {
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

# The shared server (started on first use, stopped when the tests end): its URL and an owner key
# (every scope) and an analyst key (submit, read) of one tenant.
ppsynth_test_server <- function() {
  ppsynth_skip_without_server()
  if (!is.null(ppsynth_test_env$server)) return(ppsynth_test_env$server)
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
  repeat {
    up <- tryCatch({
      resp <- httr2::req_perform(httr2::req_error(httr2::request(paste0(url, "/healthz")),
                                                  is_error = function(r) FALSE))
      httr2::resp_status(resp) == 200L
    }, error = function(e) FALSE)
    if (up) break
    if (!process$is_alive() || Sys.time() > deadline) {
      process$kill_tree()
      stop("the server did not start:\n", paste(readLines(log), collapse = "\n"))
    }
    Sys.sleep(0.5)
  }
  server <- list(url = url, owner = owner, analyst = analyst, repo = repo, process = process,
                 dir = dir)
  ppsynth_test_env$server <- server
  withr::defer({
    process$kill_tree()
    unlink(dir, recursive = TRUE)
    ppsynth_test_env$server <- NULL
  }, envir = testthat::teardown_env())
  server
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
