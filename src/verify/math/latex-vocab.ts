/** The LaTeX vocabulary the parser knows: Greek letters, function names, relations, styling wrappers. */
import type { RelOp } from "./node.ts";

/** Greek letter commands read as symbols. */
export const GREEK = new Set([
  "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta", "vartheta", "iota", "kappa",
  "lambda", "mu", "nu", "xi", "rho", "sigma", "tau", "upsilon", "phi", "varphi", "chi", "psi", "omega", "Gamma",
  "Delta", "Theta", "Lambda", "Xi", "Sigma", "Upsilon", "Phi", "Psi", "Omega", "ell", "varrho", "varsigma",
]);
/** Function names written as commands (\\sin) or bare words. */
export const FUNCS = new Set([
  "sin", "cos", "tan", "sec", "csc", "cot", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "log", "ln", "lg",
  "exp", "det", "gcd", "lcm", "max", "min", "arg", "deg", "sgn", "coth", "arccot", "arcsec", "arccsc",
]);
/** Relation tokens and the relation each means (`in`/`approx`/`notin` are handled apart). */
export const REL: Record<string, RelOp | "in" | "approx" | "notin"> = {
  "=": "=", "<": "<", ">": ">", "\\lt": "<", "\\gt": ">", "\\le": "<=", "\\leq": "<=", "\\leqslant": "<=",
  "\\ge": ">=", "\\geq": ">=", "\\geqslant": ">=", "\\neq": "!=", "\\ne": "!=", "≤": "<=", "≥": ">=", "≠": "!=",
  "\\in": "in", "\\approx": "approx", "≈": "approx", "\\notin": "notin", "\\equiv": "=",
};
/** Wrappers whose argument is the value (styling). */
export const WRAP = new Set([
  "\\mathbf", "\\boldsymbol", "\\mathit", "\\mathsf", "\\mathtt", "\\overline", "\\vec", "\\hat", "\\bar", "\\tilde",
  "\\widehat", "\\widetilde", "\\overrightarrow", "\\bm", "\\mathcal", "\\mathbb", "\\underline", "\\boxed", "\\fbox",
  "\\textcolor", "\\color", "\\mathscr", "\\pmb", "\\operatorname*",
]);
