/**
 * GSM8K test split (upstream benchmarks/gsm8k/prepare.py, itself NeMo Skills' preparation):
 * `question`, `expected_answer` (int when integral, else float; 11 known-bad answers patched),
 * `reference_solution` with the `<<…>>` calculator annotations removed.
 */
import { parseJsonlRows } from "../dataset/formats/jsonl.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import type { BenchmarkPreparer } from "./types.ts";

// Answer fixes Skills applies, keyed by the exact question text (facts of the data set).
const FIXES: Record<string, number | string> = {
  "Mr. Finnegan has 3 tanks with a capacity of 7000 gallons, 5000 gallons, and 3000 gallons, respectively. If he fills the first tank up to 3/4 full, the second tank with water up to 4/5 of its capacity, and the third tank up to half of its capacity, how many gallons in total are in the tanks?": 10750,
  "If you double a number and add 5 to the result, then that's 20 more than half of the original number. What's the original number?": 10,
  "John has 2 hives of bees.  One of the hives has 1000 bees and produces 500 liters of honey.  The second has 20% fewer bees but each bee produces 40% more honey.  How much honey does he produce?": 2740,
  "Three blue chips are in a jar which is 10% of the entire chips. If 50% of the chips are white and the rest are green, how many green chips are there?": 15,
  "Janet filmed a new movie that is 60% longer than her previous 2-hour long movie.  Her previous movie cost $50 per minute to film, and the newest movie cost twice as much per minute to film as the previous movie.  What was the total amount of money required to film Janet's entire newest film?": 19200,
  "Students at Highridge High earn 2 points for each correct answer during a quiz bowl If a student correctly answers all the questions in a round, the student is awarded an additional 4 point bonus. They played a total of five rounds each consisting of five questions. If James only missed one question, how many points did he get?": 64,
  "Robert and Teddy are planning to buy snacks for their friends.  Robert orders five boxes of pizza at $10 each box and ten cans of soft drinks at $2 each. Teddy buys six hamburgers at $3 each and an additional ten cans of soft drinks. How much do they spend in all?": 108,
  "James invests $2000 a week into his bank account.  He had $250,000 in his account when the year started.  At the end of the year, he gets a windfall that is worth 50% more than what he has in his bank account.   How much money does he have?": 531000,
  "James does chores around the class.  There are 3 bedrooms, 1 living room, and 2 bathrooms to clean.  The bedrooms each take 20 minutes to clean.  The living room takes as long as the 3 bedrooms combined.  The bathroom takes twice as long as the living room.  He also cleans the outside which takes twice as long as cleaning the house.  He splits the chores with his 2 siblings who are just as fast as him.  How long, in hours, does he work?": 6,
  "During one game, a total of 50 people attended a baseball team\u2019s games. Forty percent and thirty-four percent of the audiences are supporters of the first and second teams, respectively. How many people attended the game did not support either of the teams?": 13,
  "Pete has to take a 10-minute walk down to the train station and then board a 1hr 20-minute train to LA. When should he leave if he cannot get to LA later than 0900 hours? (24-hr time)": "07:30",
};

/** The GSM8K preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "gsm8k",
  server: "math_with_judge",
  sources: [{ kind: "url", url: "https://raw.githubusercontent.com/openai/grade-school-math/master/grade_school_math/data/test.jsonl", file: "test.jsonl" }],
  prepare(files) {
    const file = files[0]![0]!;
    const text = new TextDecoder().decode(file.bytes);
    return parseJsonlRows(text, file.name).map(({ row, line }) => {
      const question = row.question;
      const answer = row.answer;
      if (typeof question !== "string" || typeof answer !== "string" || !answer.includes("####")) {
        throw new SourceFormatError(`${file.name}:${line}`, "needs string fields 'question' and 'answer' (with '#### <answer>')");
      }
      // Python's `split("####")` then 2-tuple unpacking: exactly one separator.
      const parts = answer.split("####");
      if (parts.length !== 2) throw new SourceFormatError(`${file.name}:${line}`, "'answer' must contain exactly one '####'");
      const value = Number(parts[1]!.replace(/,/g, "").trim());
      if (!Number.isFinite(value)) throw new SourceFormatError(`${file.name}:${line}`, `the answer after '####' is not a number: ${JSON.stringify(parts[1]!.trim())}`);
      const expected = Object.hasOwn(FIXES, question) ? FIXES[question]! : value;
      return pyDumps({ question, expected_answer: expected, reference_solution: parts[0]!.replace(/<<.*?>>/g, "") });
    });
  },
};
