# Exports the real public-use survey file of docs/studies/real_file.md: R's `survey` package
# (4.1.1, GPL-2 | GPL-3) dataset `nhanes`, "Data extracted from NHANES 2009-2010 on high
# cholesterol" (8,591 examined persons). Source: US National Center for Health Statistics,
# National Health and Nutrition Examination Survey 2009-2010, a public-use file of the US
# government (public domain); previously at
# https://wwwn.cdc.gov/nchs/nhanes/search/datapage.aspx?Component=laboratory&CycleBeginYear=2009
#
#   Rscript test/reference/nhanes_export.R
#
# writes examples/nhanes.csv: the codes replaced by their labels from ?nhanes (race, gender; the
# age groups (0,19], (19,39], (39,59], (59,Inf] as 0-19, 20-39, 40-59, 60+, without commas),
# HI_CHOL kept as 0/1 with its 745 missing values as empty cells, the design columns as they are.
suppressPackageStartupMessages(library(survey))
data(nhanes, package = "survey")
out <- data.frame(
  agecat = c("0-19", "20-39", "40-59", "60+")[as.integer(nhanes$agecat)],
  gender = c("male", "female")[nhanes$RIAGENDR],
  race = c("hispanic", "white", "black", "other")[nhanes$race],
  hi_chol = nhanes$HI_CHOL,
  weight = nhanes$WTMEC2YR,
  stratum = nhanes$SDMVSTRA,
  psu = nhanes$SDMVPSU
)
write.csv(out, "examples/nhanes.csv", row.names = FALSE, quote = FALSE, na = "")
cat(sprintf("examples/nhanes.csv: %d records, %d missing hi_chol\n", nrow(out), sum(is.na(out$hi_chol))))
