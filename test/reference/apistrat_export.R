# Exports examples/apistrat.csv, the README's worked example of several variables per file: R's
# `survey` package (4.1.1, GPL-2 | GPL-3) dataset `apistrat`, a stratified sample of 200
# California schools from the Academic Performance Index 2000 (California Department of
# Education, public data), as shipped with the package.
#
#   Rscript test/reference/apistrat_export.R
#
# Columns: stype (E/H/M, public), api00 (score), enroll (pupils), awards (Yes/No).
suppressPackageStartupMessages(library(survey))
data(api, package = "survey")
out <- data.frame(
  stype = as.character(apistrat$stype),
  api00 = apistrat$api00,
  enroll = apistrat$enroll,
  awards = as.character(apistrat$awards)
)
write.csv(out, "examples/apistrat.csv", row.names = FALSE, quote = FALSE)
cat(sprintf("examples/apistrat.csv: %d records\n", nrow(out)))
