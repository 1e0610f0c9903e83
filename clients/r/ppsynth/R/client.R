# The client object, the one place requests are made, and the API's errors as R conditions.

ppsynth_user_agent <- function() {
  paste0("ppsynth-r/", utils::packageVersion("ppsynth"))
}

ppsynth_client <- function(url = Sys.getenv("PPSYNTH_URL", "http://localhost:8000"),
                           key = Sys.getenv("PPSYNTH_KEY")) {
  if (!is.character(url) || length(url) != 1L || !nzchar(url)) {
    stop("`url` must be one non-empty string, e.g. \"http://localhost:8000\"", call. = FALSE)
  }
  if (!is.character(key) || length(key) != 1L || !nzchar(key)) {
    stop("no API key: set the environment variable PPSYNTH_KEY ",
         "(`deno task keys create ...` prints one), or pass `key`", call. = FALSE)
  }
  structure(list(url = sub("/+$", "", url), key = key), class = "ppsynth_client")
}

print.ppsynth_client <- function(x, ...) {
  cat("<ppsynth_client> ", x$url, " (key ", substr(x$key, 1L, 4L), "...)\n", sep = "")
  invisible(x)
}

# A condition of class c("ppsynth_error_<code>", "ppsynth_error", "error", "condition")
# carrying the API's code, message and field (NULL when no field is at fault) and the HTTP status.
ppsynth_condition <- function(status, code, message, field = NULL, call = NULL) {
  structure(
    class = c(paste0("ppsynth_error_", code), "ppsynth_error", "error", "condition"),
    list(message = message, code = code, field = field, status = status, call = call)
  )
}

conditionMessage.ppsynth_error <- function(c) {
  where <- if (is.null(c$field)) "" else paste0(" (field `", c$field, "`)")
  paste0("ppsynth API ", c$status, " ", c$code, where, ": ", c$message)
}

# Signals the API's error of a failed response: its JSON `{"error": {code, message, field}}`, or
# the status alone when the body is not that (a proxy's page).
ppsynth_stop_response <- function(resp) {
  status <- httr2::resp_status(resp)
  body <- tryCatch(httr2::resp_body_json(resp), error = function(e) NULL)
  error <- if (is.list(body)) body$error else NULL
  if (is.list(error) && is.character(error$code)) {
    stop(ppsynth_condition(status, error$code, error$message %||% "", error$field))
  }
  stop(ppsynth_condition(status, paste0("http_", status), httr2::resp_status_desc(resp) %||% ""))
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# One request to the API. `body`: a list sent as JSON; `csv`: text sent as text/csv. Returns the
# httr2 response of a 2xx answer; any other answer is signalled as a ppsynth_error.
ppsynth_request <- function(client, path, method = "GET", body = NULL, csv = NULL,
                            query = list(), headers = list()) {
  stopifnot(inherits(client, "ppsynth_client"))
  req <- httr2::request(paste0(client$url, path))
  req <- httr2::req_method(req, method)
  req <- httr2::req_auth_bearer_token(req, client$key)
  req <- httr2::req_user_agent(req, ppsynth_user_agent())
  if (length(query) > 0L) req <- do.call(httr2::req_url_query, c(list(req), query))
  if (length(headers) > 0L) req <- do.call(httr2::req_headers, c(list(req), headers))
  if (!is.null(body)) {
    json <- jsonlite::toJSON(body, auto_unbox = TRUE, null = "null", na = "null", digits = NA)
    req <- httr2::req_body_raw(req, as.character(json), type = "application/json")
  } else if (!is.null(csv)) {
    req <- httr2::req_body_raw(req, csv, type = "text/csv")
  }
  req <- httr2::req_error(req, is_error = function(resp) FALSE)
  resp <- httr2::req_perform(req)
  if (httr2::resp_status(resp) >= 300L) ppsynth_stop_response(resp)
  resp
}

# The JSON of a response as nested lists (arrays stay lists: nothing is simplified).
ppsynth_json <- function(resp) {
  jsonlite::fromJSON(httr2::resp_body_string(resp), simplifyVector = FALSE)
}

# An id from an object of this package or a string.
ppsynth_id <- function(x, what) {
  if (is.list(x) && is.character(x$id)) return(x$id)
  if (is.character(x) && length(x) == 1L && nzchar(x)) return(x)
  stop("`", what, "` must be a ", what, " object or its id", call. = FALSE)
}
