library(testthat)
library(ppsynth)

test_check("ppsynth")
