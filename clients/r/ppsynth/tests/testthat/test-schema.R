schema <- list(columns = list(
  list(name = "REGION", kind = "categorical", levels = list("north", "south", "east")),
  list(name = "AGE", kind = "count", bounds = list(0, 99)),
  list(name = "EDU", kind = "categorical", levels = list("1", "2", "3"), notApplicable = "N"),
  list(name = "INCOME", kind = "amount", bounds = list(-100, 1e6), notApplicable = "N")
))
csv <- paste0("REGION,AGE,EDU,INCOME\n", "south,34,2,51000.5\n", "north,2,N,N\n",
              "south,70,3,-20\n")

test_that("declared kinds: factors over the declared levels in order, N/A as NA", {
  data <- ppsynth_read_csv(text = csv, schema = schema)
  expect_s3_class(data$REGION, "factor")
  expect_identical(levels(data$REGION), c("north", "south", "east"))
  expect_identical(as.character(data$REGION), c("south", "north", "south"))
  expect_identical(levels(data$EDU), c("1", "2", "3"))
  expect_identical(is.na(data$EDU), c(FALSE, TRUE, FALSE))
  expect_identical(data$AGE, c(34, 2, 70))
  expect_identical(data$INCOME, c(51000.5, NA, -20))
})

test_that("values outside the declared levels, or not numbers, are errors naming the column", {
  expect_error(ppsynth_read_csv(text = "REGION,AGE,EDU,INCOME\nwest,1,1,1\n", schema = schema),
               "column REGION: value \"west\"")
  expect_error(ppsynth_read_csv(text = "REGION,AGE,EDU,INCOME\neast,x,1,1\n", schema = schema),
               "column AGE: value \"x\" is not a number")
  expect_error(ppsynth_apply_schema(data.frame(REGION = "east"), schema), "AGE, EDU, INCOME")
})

test_that("written back as the service reads it: markers for NA, exact doubles", {
  data <- ppsynth_read_csv(text = csv, schema = schema)
  data$INCOME[3] <- 0.1 + 0.2
  text <- ppsynth:::ppsynth_csv_text(data, schema)
  lines <- strsplit(text, "\n")[[1]]
  expect_identical(lines[1:3], c("REGION,AGE,EDU,INCOME", "south,34,2,51000.5", "north,2,N,N"))
  again <- ppsynth_read_csv(text = text, schema = schema)
  expect_identical(again, data)
  quoted <- ppsynth:::ppsynth_csv_text(data.frame(a = "x,\"y\"", b = NA_real_))
  expect_identical(quoted, "a,b\n\"x,\"\"y\"\"\",\n")
})

test_that("a schema is read from its JSON file", {
  path <- tempfile(fileext = ".json")
  jsonlite::write_json(schema, path, auto_unbox = TRUE)
  data <- ppsynth_read_csv(text = csv, schema = path)
  expect_identical(levels(data$REGION), c("north", "south", "east"))
  expect_error(ppsynth_read_csv(text = csv, schema = list(a = 1)), "file schema")
})

test_that("columns the schema does not declare are left out, with a message", {
  text <- "REGION,EXTRA,AGE,EDU,INCOME\neast,x,1,1,1\n"
  expect_message(data <- ppsynth_read_csv(text = text, schema = schema), "EXTRA")
  expect_identical(names(data), c("REGION", "AGE", "EDU", "INCOME"))
})

test_that("dropping a column drops the rules that name it, and frees the columns it determined", {
  ruled <- schema
  ruled$geography <- "REGION"
  ruled$columns[[5]] <- list(name = "ZONE", kind = "categorical", levels = list("z1", "z2", "z3"),
                             determinedBy = list(column = "REGION",
                                                 map = list(north = "z1", south = "z2",
                                                            east = "z3")))
  ruled$rules <- list(
    list(name = "EDU N/A iff young", when = list(list(column = "AGE", op = "<", value = 3)),
         then = list(list(column = "EDU", isNA = TRUE)), iff = TRUE),
    list(name = "income above age", when = list(list(column = "INCOME", isNA = FALSE)),
         then = list(list(column = "INCOME", op = ">", other = "AGE")))
  )
  dropped <- ppsynth_schema_drop(ruled, "EDU")
  expect_identical(vapply(dropped$columns, function(c) c$name, ""),
                   c("REGION", "AGE", "INCOME", "ZONE"))
  expect_identical(vapply(dropped$rules, function(r) r$name, ""), "income above age")
  # A rule naming the column as `other` goes too.
  expect_length(ppsynth_schema_drop(ruled, c("EDU", "AGE"))$rules, 0L)
  expect_error(ppsynth_schema_drop(ruled, "NOPE"), "no column NOPE")
  expect_error(ppsynth_schema_drop(ruled, c("REGION", "ZONE")), "geography")
  ungeographic <- ruled
  ungeographic$geography <- NULL
  freed <- ppsynth_schema_drop(ungeographic, "REGION")
  zone <- Filter(function(c) c$name == "ZONE", freed$columns)[[1]]
  expect_null(zone$determinedBy)
  expect_identical(zone$levels, list("z1", "z2", "z3"))
})
