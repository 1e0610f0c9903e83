# Column types: a file schema (`src/data/file_schema.ts`: every column's kind, a categorical
# column's declared levels, its N/A marker) read into R types, and data frames written back as
# the CSV the service reads.

# A schema from a list (parsed JSON) or the path of a JSON file.
ppsynth_schema <- function(schema) {
  if (is.null(schema)) return(NULL)
  if (is.character(schema) && length(schema) == 1L) {
    schema <- jsonlite::fromJSON(schema, simplifyVector = FALSE)
  }
  if (!is.list(schema) || !is.list(schema$columns)) {
    stop("`schema` must be a file schema (a list with `columns`) or the path of its JSON file",
         call. = FALSE)
  }
  schema
}

ppsynth_schema_drop <- function(schema, columns) {
  schema <- ppsynth_schema(schema)
  names <- vapply(schema$columns, function(c) c$name, character(1))
  unknown <- setdiff(columns, names)
  if (length(unknown) > 0L) {
    stop("the schema declares no column ", paste(unknown, collapse = ", "), call. = FALSE)
  }
  # A column determined by a dropped one stands alone on its own declared levels (INDP_CAT
  # without INDP): it is then synthesised as any categorical column.
  kept <- lapply(Filter(function(c) !(c$name %in% columns), schema$columns), function(column) {
    parent <- column$determinedBy$column
    if (!is.null(parent) && parent %in% columns) column$determinedBy <- NULL
    column
  })
  if (!is.null(schema$geography) && schema$geography %in% columns) {
    stop("column ", schema$geography, " is the schema's geography", call. = FALSE)
  }
  named <- function(rule) {
    conditions <- c(rule$when, rule$then)
    unlist(lapply(conditions, function(c) c(c$column, c$other)))
  }
  schema$columns <- kept
  if (!is.null(schema$rules)) {
    schema$rules <- Filter(function(r) !any(named(r) %in% columns), schema$rules)
  }
  schema
}

ppsynth_apply_schema <- function(data, schema) {
  schema <- ppsynth_schema(schema)
  stopifnot(is.data.frame(data))
  names <- vapply(schema$columns, function(c) c$name, character(1))
  missing <- setdiff(names, names(data))
  if (length(missing) > 0L) {
    stop("the data lack the schema's column(s) ", paste(missing, collapse = ", "), call. = FALSE)
  }
  extra <- setdiff(names(data), names)
  if (length(extra) > 0L) {
    message("left out the column(s) the schema does not declare: ",
            paste(extra, collapse = ", "))
  }
  data <- data[names]
  for (column in schema$columns) {
    data[[column$name]] <- ppsynth_type_column(data[[column$name]], column)
  }
  data
}

# One column as its kind: a factor over the declared levels (in declared order) or a number; the
# column's N/A marker (and an empty cell) as NA. A value outside the declared levels, or a
# numeric cell that is not a number, is an error naming the column.
ppsynth_type_column <- function(x, column) {
  if (is.factor(x)) x <- as.character(x)
  na <- is.na(x)
  if (is.character(x)) {
    na <- na | x == "" | (!is.null(column$notApplicable) & x == (column$notApplicable %||% ""))
  }
  if (identical(column$kind, "categorical")) {
    levels <- vapply(column$levels, as.character, character(1))
    values <- as.character(x)
    values[na] <- NA_character_
    bad <- !is.na(values) & !(values %in% levels)
    if (any(bad)) {
      stop("column ", column$name, ": value \"", values[bad][1L],
           "\" is not among its declared levels", call. = FALSE)
    }
    return(factor(values, levels = levels))
  }
  values <- x
  if (is.character(values)) {
    values[na] <- NA_character_
    values <- suppressWarnings(as.numeric(values))
    bad <- is.na(values) & !na
    if (any(bad)) {
      stop("column ", column$name, ": value \"", x[bad][1L], "\" is not a number", call. = FALSE)
    }
  }
  as.numeric(values)
}

ppsynth_read_csv <- function(file, schema = NULL, text = NULL) {
  data <- if (is.null(text)) {
    utils::read.csv(file, colClasses = "character", na.strings = character(0),
                    check.names = FALSE, stringsAsFactors = FALSE)
  } else {
    utils::read.csv(text = text, colClasses = "character", na.strings = character(0),
                    check.names = FALSE, stringsAsFactors = FALSE)
  }
  if (!is.null(schema)) return(ppsynth_apply_schema(data, schema))
  data[] <- lapply(data, function(x) {
    x[x == ""] <- NA_character_
    utils::type.convert(x, as.is = TRUE)
  })
  data
}

# CSV text of a data frame as the service reads it: factors as their labels, numbers in 17
# significant digits (the doubles R holds), NA as the column's N/A marker where the schema
# declares one and an empty cell otherwise.
ppsynth_csv_text <- function(data, schema = NULL) {
  stopifnot(is.data.frame(data))
  markers <- list()
  if (!is.null(schema)) {
    for (column in schema$columns) {
      if (!is.null(column$notApplicable)) markers[[column$name]] <- column$notApplicable
    }
  }
  cells <- lapply(names(data), function(name) {
    x <- data[[name]]
    text <- if (is.numeric(x) && !is.integer(x)) {
      # 15 significant digits where they read back as the same double, else 17.
      out <- character(length(x))
      ok <- !is.na(x)
      short <- trimws(formatC(x[ok], digits = 15, format = "g"))
      long <- trimws(formatC(x[ok], digits = 17, format = "g"))
      out[ok] <- ifelse(as.numeric(short) == x[ok], short, long)
      out
    } else {
      as.character(x)
    }
    text[is.na(x)] <- markers[[name]] %||% ""
    quote <- grepl("[\",\r\n]", text)
    text[quote] <- paste0("\"", gsub("\"", "\"\"", text[quote]), "\"")
    text
  })
  header <- vapply(names(data), function(n) {
    if (grepl("[\",\r\n]", n)) paste0("\"", gsub("\"", "\"\"", n), "\"") else n
  }, character(1))
  rows <- do.call(paste, c(cells, sep = ","))
  paste0(paste(c(paste(header, collapse = ","), rows), collapse = "\n"), "\n")
}
