# Exports the real public-use labour-force file of issue 23: R's `AER` package (GPL-2 | GPL-3)
# dataset `CPS1988`, "Cross-section data originating from the March 1988 Current Population
# Survey by the US Census Bureau" (28,155 men aged 18 to 70 with positive annual income greater
# than USD 50 in 1992, who are not self-employed nor working without pay). Source: Bierens, H.J.
# and Ginther, D. (2001), "Integrated Conditional Moment Testing of Quantile Regression Models",
# Empirical Economics 26, 307-324; the CPS is a public-use file of the US government (public
# domain). See ?CPS1988 in AER.
#
#   Rscript test/reference/cps1988_export.R
#
# writes examples/cps1988.csv: wage (weekly wage in dollars, deflated: a skewed amount),
# education and experience (years: numeric, on their raw scales), and the factors ethnicity
# (cauc, afam), smsa (yes, no), region (northeast, midwest, south, west) and parttime (yes, no) as
# their labels.
suppressPackageStartupMessages(library(AER))
data(CPS1988, package = "AER")
out <- data.frame(
  wage = CPS1988$wage,
  education = CPS1988$education,
  experience = CPS1988$experience,
  ethnicity = as.character(CPS1988$ethnicity),
  smsa = as.character(CPS1988$smsa),
  region = as.character(CPS1988$region),
  parttime = as.character(CPS1988$parttime)
)
write.csv(out, "examples/cps1988.csv", row.names = FALSE, quote = FALSE)
cat(sprintf("examples/cps1988.csv: %d records\n", nrow(out)))
