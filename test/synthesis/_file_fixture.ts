/**
 * A small mixed file and its declared schema, shared by the whole-file tests (issue 35): region
 * (the geography), a 1/2 code, age, children (N/A under 15), income (an amount, N/A under 15) and
 * a weight with a declared total.
 */

/** The file's CSV text of n records. */
export function fileCsv(n: number): string {
  const rows = ["REGION,SEX,AGE,KIDS,INCOME,WT"];
  for (let i = 0; i < n; i++) {
    const age = (i * 37) % 90;
    const kids = age < 15 ? "N" : String((i * 7) % 4);
    const income = age < 15 ? "N" : `${((i * 7919) % 90_000) + (i % 3 === 0 ? 0 : 1000)}.0`;
    rows.push(`r${i % 3},${1 + (i % 2)},${age},${kids},${income},${20 + ((i * 13) % 180)}`);
  }
  return rows.join("\n") + "\n";
}

/** The file's declared schema (JSON as the owner writes it). */
export const SCHEMA = {
  geography: "REGION",
  bins: 8,
  columns: [
    { name: "REGION", kind: "categorical", levels: ["r0", "r1", "r2"] },
    { name: "SEX", kind: "categorical", levels: ["1", "2"] },
    { name: "AGE", kind: "count", bounds: [0, 99] },
    { name: "KIDS", kind: "count", bounds: [0, 9], notApplicable: "N" },
    {
      name: "INCOME",
      kind: "amount",
      bounds: [-5000, 200_000],
      integer: true,
      decimals: 1,
      notApplicable: "N",
    },
    { name: "WT", kind: "weight", bounds: [1, 999], integer: true, total: 50_000 },
  ],
  rules: [
    {
      name: "no income under 15",
      when: [{ column: "AGE", op: "<", value: 15 }],
      then: [{ column: "INCOME", isNA: true }],
      iff: true,
    },
  ],
};
