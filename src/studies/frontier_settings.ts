/**
 * The frontier's settings and shapes (issue 24; `frontier.ts` runs it): the mechanisms and their
 * labels, the real files (NHANES, CPS 1988) with their outcomes and survey tables, the settings
 * of the full run and of `--quick`, the plan of arms, and the result's plain-JSON shapes (each
 * arm's release and utility measures, the files' baselines), with the cache of finished arms (a folder's, and one that also finds an earlier result's arms).
 *
 * @module
 */
import { writeFilesAtomically } from "../data/write_files.ts";
import type { Dataset } from "../data/dataset.ts";
import type { ModelName } from "../models/mod.ts";
import { type FinalFit } from "./final_fit.ts";

/** The mechanisms of the frontier, in the order of its tables and legend. */
export const FRONTIER_MECHANISMS = [
  "sw",
  "lw-final",
  "weighted-e",
  "censored-w",
  "censored",
  "histogram",
  "laplace-table",
] as const;
export type FrontierMechanism = typeof FRONTIER_MECHANISMS[number];

/** The papers' names of the mechanisms. */
export const MECHANISM_LABELS: Readonly<Record<FrontierMechanism, string>> = {
  "sw": "SW",
  "lw-final": "LW_final",
  "weighted-e": "Weighted-e",
  "censored-w": "Censor w",
  "censored": "Censor uw",
  "histogram": "Histogram",
  "laplace-table": "Laplace table",
};

/** Mechanisms that synthesise every outcome of the file with its relation to the covariates. */
export const RECORD_MECHANISMS: readonly FrontierMechanism[] = [
  "sw",
  "lw-final",
  "weighted-e",
  "censored-w",
  "censored",
];

/** A confidential outcome and its model. */
export interface FrontierOutcome {
  readonly name: string;
  readonly model: ModelName;
}

/** The weighted survey table of a binary outcome by two public groupings (a survey file). */
export interface FrontierTable {
  /** The 0/1 outcome tabulated (one of the outcomes). */
  readonly y: string;
  readonly by: readonly [string, string];
  readonly weight: string;
  readonly strata: string;
  /** The PSU column (used only by the design-leakage check). */
  readonly psu: string;
  /** The owner's declared weight bounds, for the Laplace baseline's bounded mode. */
  readonly weightBounds: readonly [number, number];
}

/** A real file and what is synthesised on it. */
export interface FrontierFile {
  readonly key: string;
  readonly label: string;
  /** The CSV file. */
  readonly data: string;
  /** Keep every k-th record (1: all). */
  readonly every: number;
  /** Drop records with a missing value among the outcomes and public covariates. */
  readonly dropMissing: boolean;
  readonly outcomes: readonly FrontierOutcome[];
  readonly public: readonly string[];
  /** The declared level sets of every text column used. */
  readonly levels: Readonly<Record<string, readonly string[]>>;
  readonly utilityModels: readonly string[];
  /** The histogram's outcome and, for a numeric one, its declared bounds and bins. */
  readonly histogram: {
    readonly outcome: FrontierOutcome;
    readonly lower?: number;
    readonly upper?: number;
    readonly bins?: number;
  };
  /** The survey table, on a survey file. */
  readonly table?: FrontierTable;
}

/** NHANES 2009–2010 (`examples/nhanes.csv`, `test/reference/nhanes_export.R`). */
export const NHANES_FILE: FrontierFile = Object.freeze<FrontierFile>({
  key: "nhanes",
  label: "NHANES",
  data: "examples/nhanes.csv",
  every: 1,
  dropMissing: true,
  outcomes: [{ name: "race", model: "categorical" }, { name: "hi_chol", model: "logistic" }],
  public: ["agecat", "gender"],
  levels: {
    race: ["hispanic", "white", "black", "other"],
    hi_chol: ["0", "1"],
    agecat: ["0-19", "20-39", "40-59", "60+"],
    gender: ["male", "female"],
  },
  utilityModels: ["hi_chol ~ agecat + gender + race"],
  histogram: { outcome: { name: "hi_chol", model: "logistic" } },
  table: {
    y: "hi_chol",
    by: ["agecat", "gender"],
    weight: "weight",
    strata: "stratum",
    psu: "psu",
    weightBounds: [0, 250_000],
  },
});

/**
 * CPS1988 (`examples/cps1988.csv`, `test/reference/cps1988_export.R`): a skewed amount, a binary
 * and a categorical outcome given two raw-scale numeric and two categorical covariates. The
 * histogram's bounds are declared: weekly wages of 0 to 20,000 dollars in 40 bins.
 */
export const CPS1988_FILE: FrontierFile = Object.freeze<FrontierFile>({
  key: "cps1988",
  label: "CPS1988",
  data: "examples/cps1988.csv",
  every: 8,
  dropMissing: false,
  outcomes: [
    { name: "wage", model: "lognormal" },
    { name: "parttime", model: "logistic" },
    { name: "region", model: "categorical" },
  ],
  public: ["education", "experience", "ethnicity", "smsa"],
  levels: {
    parttime: ["no", "yes"],
    region: ["northeast", "midwest", "south", "west"],
    ethnicity: ["cauc", "afam"],
    smsa: ["no", "yes"],
  },
  utilityModels: ["parttime ~ education + experience + ethnicity + smsa + region"],
  histogram: { outcome: { name: "wage", model: "lognormal" }, lower: 0, upper: 20_000, bins: 40 },
});

/** The settings of a frontier run. */
export interface FrontierSettings {
  readonly files: readonly FrontierFile[];
  readonly mechanisms: readonly FrontierMechanism[];
  readonly epsilons: readonly number[];
  readonly ms: readonly number[];
  /** Posterior draws S (all chains), chains and warmup iterations per chain. */
  readonly draws: number;
  readonly chains: number;
  readonly warmup: number;
  readonly seed: number;
}

/**
 * The full run of `deno task frontier`: 115 arms at the real-file study's sampler (S = 2000
 * draws after 500 warmup iterations per chain; fewer left R̂ just above 1.01 in fits that had
 * mixed), on every 8th record of CPS1988 (n = 3520) to keep the run to a few hours on two cores.
 */
export const FRONTIER_SETTINGS: FrontierSettings = Object.freeze<FrontierSettings>({
  files: [NHANES_FILE, CPS1988_FILE],
  mechanisms: FRONTIER_MECHANISMS,
  epsilons: [1, 2, 5, 10, 20],
  ms: [1, 3],
  draws: 2000,
  chains: 4,
  warmup: 500,
  seed: 1,
});

/** The utility of one synthesis (or table), each measure null where it does not apply. */
export interface ArmMetrics {
  /** TVD of each synthesised categorical margin (mean over the m datasets). */
  readonly marginTvd: Readonly<Record<string, number>>;
  /** Mean TVD over the margins and two-way tables of the synthesised categorical variables. */
  readonly meanTvd: number | null;
  /** The worst two-way table's TVD (synthesised × synthesised or × public). */
  readonly maxTwoWayTvd: number | null;
  /** pMSE and S_pMSE (mean over m), and whether any propensity fit separated. */
  readonly pMSE: number | null;
  readonly sPMSE: number | null;
  readonly separated: boolean | null;
  /**
   * Per synthesised variable: a binary's share of its second level, synthetic − confidential (in
   * points); a numeric's mean, (synthetic − confidential)/confidential.
   */
  readonly bias: Readonly<Record<string, number>>;
  /** The utility model's mean confidence-interval overlap over its coefficients. */
  readonly ciOverlap: number | null;
  /** Survey table: the share of cells whose 95% interval covers the confidential mean. */
  readonly tableCoverage: number | null;
  /** Survey table: mean |synthetic − confidential| cell mean, in points. */
  readonly tableError: number | null;
}

/** One released synthesis of the frontier. */
export interface FrontierArm {
  readonly file: string;
  readonly mechanism: FrontierMechanism;
  readonly epsilon: number;
  readonly m: number;
  /** The release: achieved ε, guarantee, Δ (null: histogram and table), records. */
  readonly release: {
    readonly epsilon: number;
    readonly guarantee: string;
    readonly lipschitz: number | null;
    readonly n: number;
  };
  /** Fits run (0: histogram and table) and the final fit's health. */
  readonly fits: number;
  readonly finalFit: FinalFit | null;
  readonly metrics: ArmMetrics;
}

/** An arm that could not be released (the mechanism could not reach its ε). */
export interface FrontierFailure {
  readonly file: string;
  readonly mechanism: FrontierMechanism;
  readonly epsilon: number;
  readonly m: number;
  readonly error: string;
}

/** Whether an arm was released. */
export function isReleased(arm: FrontierArm | FrontierFailure): arm is FrontierArm {
  return !("error" in arm);
}

/** The confidential side of a file: what every arm is scored against. */
export interface FrontierBaseline {
  readonly file: string;
  readonly n: number;
  readonly dropped: number;
  /** A binary outcome's share of its second level (points), a numeric's mean. */
  readonly values: Readonly<Record<string, number>>;
  /**
   * On a survey file: how well a many-level outcome is predicted on held-out records
   * (`stats/held_out.ts`) from the public covariates alone, with the weight's ventile, and with
   * the weight's ventile, stratum and PSU — what releasing the design columns unsynthesised would
   * add (why a default release does not).
   */
  readonly designLeakage?: {
    readonly outcome: string;
    readonly publicOnly: number;
    readonly withWeight: number;
    readonly withDesign: number;
  };
}

/** The result of a run (the JSON file). */
export interface FrontierResult {
  readonly study: "frontier";
  readonly settings: FrontierSettings;
  /** Arms planned, and how many the result holds (fewer: a partial run, `--partial`). */
  readonly planned: number;
  readonly baselines: readonly FrontierBaseline[];
  readonly arms: readonly (FrontierArm | FrontierFailure)[];
}

/** One planned arm. */
export interface ArmPlan {
  readonly file: FrontierFile;
  readonly mechanism: FrontierMechanism;
  readonly epsilon: number;
  readonly m: number;
}

/** A plan's key (its cache file name). */
export function armKey(
  plan: Pick<ArmPlan, "mechanism" | "epsilon" | "m"> & { file: { key: string } },
): string {
  return `${plan.file.key}-${plan.mechanism}-e${plan.epsilon}-m${plan.m}`;
}

/**
 * The arms of a run, file by file, then m, ε and mechanism; the histogram and the Laplace table
 * are charged once for any m, so they run at m = 1 only, and the table only on a survey file.
 */
export function frontierPlan(settings: FrontierSettings): ArmPlan[] {
  const plans: ArmPlan[] = [];
  for (const file of settings.files) {
    for (const m of settings.ms) {
      for (const epsilon of settings.epsilons) {
        for (const mechanism of settings.mechanisms) {
          if ((mechanism === "histogram" || mechanism === "laplace-table") && m !== 1) continue;
          if (mechanism === "laplace-table" && file.table === undefined) continue;
          plans.push({ file, mechanism, epsilon, m });
        }
      }
    }
  }
  return plans;
}

/** Told when an arm starts and how its fits progress. */
export type FrontierProgress = (arm: string, stage: string, done: number, total: number) => void;

/** A finished arm as a cache keeps it. */
export interface CachedFrontierArm {
  /** The settings it was computed under (JSON of {@linkcode FrontierSettings} less the plan). */
  readonly settings: string;
  readonly arm: FrontierArm | FrontierFailure;
  readonly seconds: number;
}

/** Where finished arms are kept, so that an interrupted run resumes. */
export interface FrontierCache {
  get(key: string): Promise<CachedFrontierArm | undefined>;
  set(key: string, value: CachedFrontierArm): Promise<void>;
}

/** Options of {@linkcode runFrontier}. */
export interface RunFrontierOptions {
  readonly onProgress?: FrontierProgress;
  readonly cache?: FrontierCache;
  /** Read a file (default: `readCsv` of its path). */
  readonly read?: (path: string) => Promise<Dataset>;
  /** Run only the arms whose key this accepts (the others must be in the cache or are left out). */
  readonly only?: (key: string) => boolean;
}

/** What an arm's result depends on besides its plan: the sampler, the seed and the file. */
export function armSettings(plan: ArmPlan, settings: FrontierSettings): string {
  const { draws, chains, warmup, seed } = settings;
  // The PSU column serves the baseline's leakage check only: no arm depends on it.
  const { table } = plan.file;
  const file = table === undefined ? plan.file : {
    ...plan.file,
    table: Object.fromEntries(Object.entries(table).filter(([k]) => k !== "psu")),
  };
  return JSON.stringify({ file, draws, chains, warmup, seed });
}

/** The reduced run of `--quick`. */
export const QUICK_FRONTIER: FrontierSettings = Object.freeze({
  ...FRONTIER_SETTINGS,
  files: [{ ...NHANES_FILE, every: 40 }, { ...CPS1988_FILE, every: 80 }],
  epsilons: [5],
  ms: [1],
  draws: 200,
  chains: 2,
  warmup: 150,
});

/** A cache of finished arms: one JSON file per arm in `dir`. */
export function frontierFolderCache(dir: string): FrontierCache {
  const path = (key: string) => `${dir}/${key}.json`;
  return {
    async get(key) {
      try {
        return JSON.parse(await Deno.readTextFile(path(key)));
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return undefined;
        throw error;
      }
    },
    async set(key, value) {
      await writeFilesAtomically(dir, new Map([[`${key}.json`, JSON.stringify(value) + "\n"]]));
    },
  };
}

/**
 * A cache that also finds the arms of an earlier result (a committed partial run): an arm of it
 * counts when its file and the sampler are the same as the plan's.
 *
 * @param inner The folder cache.
 * @param earlier The earlier result, or null.
 */
export function withEarlierArms(
  inner: FrontierCache,
  earlier: FrontierResult | null,
): FrontierCache {
  if (earlier === null) return inner;
  const kept = new Map<string, CachedFrontierArm>();
  for (const arm of earlier.arms) {
    const file = earlier.settings.files.find((f) => f.key === arm.file);
    if (file === undefined) continue;
    const plan = { file, mechanism: arm.mechanism, epsilon: arm.epsilon, m: arm.m };
    kept.set(armKey(plan), { settings: armSettings(plan, earlier.settings), arm, seconds: 0 });
  }
  return {
    async get(key) {
      return await inner.get(key) ?? kept.get(key);
    },
    set: (key, value) => inner.set(key, value),
  };
}
