/**
 * The rule-based verifiers of the library servers, as tables: upstream's tests/ cases (calendar,
 * equivalence_rule, xlam_fc, example_tool_call_multireward, arc_agi, circle_*, math_advanced_calculations)
 * plus bad input. Exact difflib ratios were computed once with CPython's difflib.
 */
import { describe, expect, test } from "bun:test";
import { gradeArcGrid, parseGrid } from "../../src/verify/rules/arc-grid.ts";
import { gradeCalendar, timeToMinutes } from "../../src/verify/rules/calendar.ts";
import { gradeClick, gradeCount } from "../../src/verify/rules/circles.ts";
import { gradeEquivalence } from "../../src/verify/rules/equivalence.ts";
import { callMathTool, gradeMultiverse, MathToolError } from "../../src/verify/rules/multiverse-math.ts";
import { gradeMultiReward, gradeXlam } from "../../src/verify/rules/tool-call-match.ts";
import { gradeGuiCoordinate, parseExpectedPoint, parsePoint } from "../../src/verify/rules/gui-coordinate.ts";
import { pyEqual } from "../../src/util/py-equal.ts";
import { pyFloat, pyInt } from "../../src/util/py-int.ts";
import { sequenceRatio } from "../../src/util/py-sequence-matcher.ts";

type Obj = Record<string, unknown>;
const msg = (text: string): Obj => ({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const call = (name: string, args: unknown): Obj => ({ type: "function_call", name, arguments: typeof args === "string" ? args : JSON.stringify(args), call_id: "c", id: "fc" });
const resp = (...output: Obj[]) => ({ output });

describe("python helpers", () => {
  test.each([
    [1, 1.0, true], [true, 1, true], [false, 0, true], ["1", 1, false], [null, null, true], [null, 0, false],
    [{ a: 1, b: [1, 2] }, { b: [1.0, 2], a: 1 }, true], [{ a: 1 }, { a: 1, b: 2 }, false], [[1, 2], [2, 1], false], [[], {}, false],
  ])("pyEqual(%p, %p) = %p", (a, b, want) => expect(pyEqual(a, b)).toBe(want));

  test.each([["12", 12], [" -3 ", -3], ["1_000", 1000], [12.9, 12], [-12.9, -12], [true, 1]] as const)("int(%p) = %p", (x, want) => expect(pyInt(x)).toBe(want));
  test.each(["1.5", "", "abc", "1__0", null, "0x10", { a: 1 }])("int(%p) is an error", (x) => expect(() => pyInt(x)).toThrow());
  test.each([["1.5", 1.5], [" 2 ", 2], ["-inf", -Infinity], ["1e3", 1000], [3, 3]] as const)("float(%p) = %p", (x, want) => expect(pyFloat(x)).toBe(want));
  test.each(["abc", "", null])("float(%p) is an error", (x) => expect(() => pyFloat(x)).toThrow());
});

describe("difflib SequenceMatcher ratio (autojunk on)", () => {
  test.each([
    ["hello world", "hello", 0.625],
    ["abc", "xyz", 0.0],
    ["foo bar", "foo baz", 0.8571428571428571],
    ["some text", "other text", 0.7368421052631579],
    ["", "", 1.0],
    // 270 code points: every character is "popular" in b, so nothing seeds a match (0.853… without autojunk).
    ["the quick brown fox jumps over the lazy dog. ".repeat(6).trim(), "a quick brown cat jumps over the lazy dogs! ".repeat(6).trim(), 0.0],
    // Code points, not UTF-16 units.
    ["naïve café 😀 ok", "naive cafe 😀 ok", 0.8666666666666667],
  ])("ratio(%p, %p) = %p", (a, b, want) => expect(sequenceRatio(a, b)).toBeCloseTo(want, 12));
});

describe("equivalence_rule grading", () => {
  test.each([
    ["Paris", "Paris", "exact", 1], ["paris", "Paris", "exact", 1], ["  Paris  ", "Paris", "exact", 1], ["London", "Paris", "exact", 0],
    ["", "", "exact", 1], ["Par", "Paris", "exact", 0], ["Hello\n\t  World", "hello world", "exact", 1],
    ["hello", "hello", "seq_match", 1], ["Hello", "hello", "seq_match", 1], ["hello world", "hello", "seq_match", 0.625],
    ["hello", "hello", "weighted_seq_match", 1], ["hello world", "hello", "weighted_seq_match", 0.68125], ["xyz", "abc", "weighted_seq_match", 0],
  ] as const)("%p vs %p (%s) → %p", (r, a, rule, want) => expect(gradeEquivalence(r, a, rule)).toBeCloseTo(want, 12));
});

const ev = (duration: number, constraint: string | null, min = "10:00", max = "16:00") => ({ duration, constraint, min_time: min, max_time: max });
const cal = (...events: [number, string, number][]) => JSON.stringify(events.map(([id, start, duration]) => ({ event_id: id, start_time: start, duration })));

describe("calendar grading (upstream tests/test_app.py cases)", () => {
  test.each([
    ["single event in its window", cal([0, "2pm", 60]), { 0: ev(60, "between 2pm and 4pm") }, 1, "pass"],
    ["two events", cal([0, "2pm", 60], [1, "12pm", 90]), { 0: ev(60, "between 2pm and 4pm"), 1: ev(90, "between 12pm and 2pm") }, 1, "pass"],
    ["<think> present", `<think>plan</think>${cal([0, "2pm", 60])}`, { 0: ev(60, "between 2pm and 4pm") }, 0, "think_found"],
    ["no events expected", "No events to schedule.", {}, 1, "pass"],
    ["no JSON list", "I scheduled it at 2pm", { 0: ev(60, null) }, 0, "no_json_list"],
    ["empty list", "[]", { 0: ev(60, null) }, 0, "no_json_list"],
    ["too few events", cal([0, "2pm", 60]), { 0: ev(60, null), 1: ev(60, null) }, 0, "different_number_of_events"],
    ["too many events", cal([0, "2pm", 60], [1, "11am", 60]), { 0: ev(60, null) }, 0, "different_number_of_events"],
    ["overlap", cal([0, "2pm", 60], [1, "2:30pm", 60]), { 0: ev(60, null), 1: ev(60, null) }, 0, "conflicting_events"],
    ["back to back is fine", cal([0, "2pm", 60], [1, "3pm", 60]), { 0: ev(60, null), 1: ev(60, null) }, 1, "pass"],
    ["before violated", cal([0, "12:15pm", 45]), { 0: ev(45, "before 12:45pm") }, 0, "constraint_violated"],
    ["before met", cal([0, "12pm", 45]), { 0: ev(45, "before 12:45pm") }, 1, "pass"],
    ["after violated", cal([0, "1pm", 30]), { 0: ev(30, "after 1:30pm") }, 0, "constraint_violated"],
    ["after met", cal([0, "1:30pm", 30]), { 0: ev(30, "after 1:30pm") }, 1, "pass"],
    ["between starts early", cal([0, "11:30am", 60]), { 0: ev(60, "between 12pm and 2pm") }, 0, "constraint_violated"],
    ["between ends late", cal([0, "1:30pm", 60]), { 0: ev(60, "between 12pm and 2pm") }, 0, "constraint_violated"],
    ["at violated", cal([0, "2:15pm", 30]), { 0: ev(30, "at 2pm") }, 0, "constraint_violated"],
    ["at met (24h start)", cal([0, "14:00", 30]), { 0: ev(30, "at 2pm") }, 1, "pass"],
    ["before min_time", cal([0, "9am", 60]), { 0: ev(60, null) }, 0, "constraint_violated"],
    ["after max_time", cal([0, "3:30pm", 60]), { 0: ev(60, null) }, 0, "constraint_violated"],
    ["wrong duration", cal([0, "2pm", 30]), { 0: ev(60, null) }, 0, "constraint_violated"],
    // Bad input: grading errors are a 0 with a reason, never an exception.
    ["unparsable time", cal([0, "two pm", 60]), { 0: ev(60, null) }, 0, "error_in_grading"],
    ["string duration", JSON.stringify([{ event_id: 0, start_time: "2pm", duration: "60" }]), { 0: ev(60, null) }, 0, "error_in_grading"],
    ["unknown event id", cal([7, "2pm", 60]), { 0: ev(60, null) }, 0, "error_in_grading"],
    ["event without start_time", JSON.stringify([{ event_id: 0, duration: 60 }]), { 0: ev(60, null) }, 0, "error_in_grading"],
    ["bad between", cal([0, "2pm", 60]), { 0: ev(60, "between 2pm") }, 0, "error_in_grading"],
  ])("%s", (_n, text, exp, reward, reason) => expect(gradeCalendar(text, exp as Obj)).toEqual({ reward: reward as 0 | 1, reason: reason as never }));

  test.each([["10am", 600], ["12am", 0], ["12pm", 720], ["2:15pm", 855], ["12:30am", 30], [" 09:05 ", 545], ["23:59", 1439]] as const)("time %p = %p min", (t, m) => expect(timeToMinutes(t)).toBe(m));
});

describe("xlam_fc grading", () => {
  const exp = [{ name: "f", arguments: { a: 1 } }, { name: "g", arguments: {} }];
  test.each([
    ["all matched in any order", resp(call("g", {}), call("f", { a: 1.0, extra: 2 })), exp, 1, 2],
    ["one missing", resp(call("f", { a: 1 })), exp, 0, 1],
    ["one extra", resp(call("f", { a: 1 }), call("g", {}), call("g", {})), exp, 0, 2],
    ["wrong value", resp(call("f", { a: 2 }), call("g", {})), exp, 0, 1],
    ["unparsable arguments read as {}", resp(call("f", "{oops"), call("g", {})), exp, 0, 1],
    ["no calls expected, none made", resp(msg("hi")), [], 1, 0],
    ["no calls expected, one made", resp(call("f", {})), [], 0, 0],
    ["expected arguments as a JSON string", resp(call("f", { a: 1 })), [{ name: "f", arguments: "{\"a\": 1}" }], 1, 1],
  ])("%s", (_n, r, e, reward, correct) => {
    const g = gradeXlam(r, e as Obj[]);
    expect([g.reward, g.num_correct]).toEqual([reward, correct]);
  });
});

describe("example_tool_call_multireward grading", () => {
  const tools = [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];
  const expected = { name: "get_weather", arguments: { city: "SF" } };
  test.each([
    ["perfect", resp(call("get_weather", { city: "SF" })), expected, [1, 1, 1]],
    ["correct with prose", resp(msg("sure"), call("get_weather", { city: "SF" })), expected, [1, 1, 0]],
    ["wrong city", resp(call("get_weather", { city: "LA" })), expected, [0, 1, 1]],
    ["missing required parameter", resp(call("get_weather", {})), expected, [0, 0, 1]],
    ["arguments not JSON", resp(call("get_weather", "nope")), expected, [0, 0, 1]],
    ["two calls, second correct", resp(call("get_weather", { city: "LA" }), call("get_weather", { city: "SF" })), expected, [1, 1, 0]],
    ["no call", resp(msg("SF is sunny")), expected, [0, 0, 0]],
    ["empty expected never correct", resp(call("get_weather", { city: "SF" })), {}, [0, 1, 1]],
  ])("%s", (_n, r, e, [c, s, f]) => {
    const g = gradeMultiReward(r, tools, e as Obj);
    expect([g.correctness, g.schema_valid, g.format, g.reward]).toEqual([c!, s!, f!, c! + s! + f!]);
    expect(g.reward_components).toEqual({ correctness: c, schema_valid: s, format: f });
  });
});

describe("arc_agi grid extraction", () => {
  test.each([
    ["boxed", "so \\boxed{[[1, 2], [3, 4]]}", [[1, 2], [3, 4]]],
    ["multi-line boxed", "\\boxed{[\n [1,2],\n [3,4]\n]}", [[1, 2], [3, 4]]],
    ["bare grid when nothing boxed", "answer: [[5]] done", [[5]]],
    ["boxed beats bare", "[[9]] then \\boxed{[[1]]}", [[1]]],
    ["first parsable boxed", "\\boxed{[[1,,2]]} \\boxed{[[3]]}", [[3]]],
    ["empty rows refused", "\\boxed{[[]]}", null],
    ["no grid", "I do not know", null],
    ["decimals never match", "\\boxed{[[1.5]]}", null],
  ])("%s", (_n, text, grid) => expect(parseGrid(text)).toEqual(grid));

  test("reward needs the exact grid; a reasoning item is not read", () => {
    expect(gradeArcGrid(resp(msg("\\boxed{[[1,2]]}")), [[1, 2]]).reward).toBe(1);
    expect(gradeArcGrid(resp(msg("\\boxed{[[1,2]]}")), [[1, 2], [3, 4]]).reward).toBe(0);
    expect(gradeArcGrid(resp({ type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "\\boxed{[[1]]}" }] }), [[1]])).toEqual({ reward: 0, predicted_output: null, extraction_successful: false });
  });
});

describe("circle_click / circle_count grading", () => {
  const circles = [{ x: 100, y: 100, radius: 10, color: "red" }, { x: 300, y: 300, radius: 50, color: "blue" }, { x: 0, y: 0, radius: 500, color: "blue" }];
  test.each([
    ["inside", resp(call("click", { x: 310, y: 320 })), 1, 310, 320],
    ["on the edge", resp(call("click", { x: 350, y: 300 })), 1, 350, 300],
    ["outside the first blue (the second is not considered)", resp(call("click", { x: 10, y: 10 })), 0, 10, 10],
    ["float and string coordinates go through int()", resp(call("click", { x: 300.9, y: "301" })), 1, 300, 301],
    ["first click call only", resp(call("click", { x: 0, y: 0 }), call("click", { x: 300, y: 300 })), 0, 0, 0],
    ["missing y keeps x", resp(call("click", { x: 300 })), 0, 300, null],
    ["unparsable arguments", resp(call("click", "{x:1")), 0, null, null],
    ["no click", resp(msg("(300, 300)")), 0, null, null],
  ])("%s", (_n, r, reward, x, y) => expect(gradeClick(r, circles, "blue")).toMatchObject({ reward, clicked_x: x, clicked_y: y }));

  test.each([
    ["\\boxed{2}", 1, 2], ["\\boxed{3} or \\boxed{2}", 0, 3], ["two", 0, null], ["\\boxed{ 2 }", 0, null],
  ] as const)("count %p", (text, reward, predicted) => expect(gradeCount(text, circles, "blue")).toMatchObject({ reward, predicted_count: predicted, expected_count: 2 }));
});

describe("math_advanced_calculations tools and verify", () => {
  test.each([
    ["add", { a: 1, b: 2 }, 4.2], ["subtract", { a: 5, b: 1 }, 1], ["multiply", { a: 2, b: 3 }, 6.6000000000000005], ["divide", { a: 4, b: 2 }, 1],
    ["power", { a: 2, b: 1 }, 8], ["negate", { a: 3 }, 3], ["return_constant", { a: 7 }, 7], ["pi", {}, Math.E],
    ["sin", { radians: 0 }, 1], ["cos", { radians: 0 }, 0], ["log", { a: 8, base: 0.5 }, 3],
  ] as const)("%s(%p) = %p", (name, args, want) => expect(callMathTool(name, args)).toBeCloseTo(want, 12));

  test.each([
    ["divide", { a: 1, b: 0 }, "float division by zero"],
    ["add", { a: 1 }, "add() missing 1 required positional argument: 'b'"],
    ["negate", { a: 1, b: 2 }, "negate() got an unexpected keyword argument 'b'"],
    ["log", { a: -1, base: 2 }, "math domain error"],
    ["power", { a: -8, b: -1.5 }, "complex"],
  ] as const)("%s(%p) fails: %s", (name, args, text) => {
    expect(() => callMathTool(name, args as never)).toThrow(MathToolError);
    expect(() => callMathTool(name, args as never)).toThrow(text);
  });

  const out = (o: string) => ({ type: "function_call_output", call_id: "c", output: o });
  test.each([
    ["every value seen", [out('{"solution": 4.2}'), out('{"solution": 1}')], [4.2, 1], 1],
    ["one missing", [out('{"solution": 4.2}')], [4.2, 1], 0],
    ["error outputs are ignored", [out('{"detail": "float division by zero"}'), out('{"solution": 1}')], [1], 1],
    ["no outputs", [], [1], 0],
    ["empty ground truth", [], [], 1],
  ] as const)("%s", (_n, items, gt, reward) => expect(gradeMultiverse({ output: items }, gt as unknown as unknown[])).toBe(reward));
});

describe("gui_coordinate (upstream tests/test_app.py cases)", () => {
  test.each([["0.5,0.25", [0.5, 0.25]], ["not,coords", null], ["0.1,0.2,0.3", null], [" 0.5 , 1e-1", [0.5, 0.1]]] as const)("expected %p → %p", (s, want) => expect(parseExpectedPoint(s)).toEqual(want as never));
  test.each([
    ["<point>(500, 250)</point>", [0.5, 0.25]], ["<point>[(500,250)]</point>", [0.5, 0.25]], ["I will click <point>( 500 , 250 )</point> now.", [0.5, 0.25]],
    ["<point>500 250</point>", null], ["no point here", null], ["<point>(1, 2)</point> <point>(3, 4)</point>", [0.001, 0.002]],
  ] as const)("point in %p → %p", (t, want) => expect(parsePoint(t)).toEqual(want as never));
  test.each([["<point>(500, 250)</point>", 1.0], ["<point>(550, 250)</point>", 0.25], ["<point>(900, 900)</point>", 0.0], ["nothing", 0.0]] as const)("reward of %p with max_dist 0.1 = %p", (t, want) =>
    expect(gradeGuiCoordinate(t, "0.5,0.25", 0.1).reward).toBeCloseTo(want, 12));
  test("an unparsable expected answer gives 0 and no extraction", () => expect(gradeGuiCoordinate("<point>(1, 1)</point>", "x", 0.15)).toEqual({ reward: 0, expected_answer: "x", extracted_x: null, extracted_y: null, distance: null }));
});
