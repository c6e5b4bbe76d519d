/**
 * Is a schema well formed under the JSON Schema 2020-12 meta-schema plus OpenAPI 3.1's base
 * vocabulary (discriminator, xml, externalDocs, example)? openapi-schema-validator checks this
 * (`check_schema`) before it validates anything, so a tool whose declared parameters misuse a keyword
 * (`"required": true` on a property, `"type": "strin"`, `items` as a list) fails every call. Unknown
 * keywords are allowed, as the meta-schema allows them; `format` values are not asserted.
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const TYPES = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);
const isNonNegInt = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isNum = (v: unknown) => typeof v === "number";
const isStr = (v: unknown) => typeof v === "string";
const isBool = (v: unknown) => typeof v === "boolean";
const uniqueStrings = (v: unknown) => Array.isArray(v) && v.every(isStr) && new Set(v).size === v.length;

/** Keyword → what its value must be ("schema", "schemas" = non-empty list of schemas, "schemaMap" = object of schemas, or a predicate). */
const KEYWORDS: Record<string, "schema" | "schemas" | "schemaMap" | ((v: unknown) => boolean)> = {
  $id: isStr, $schema: isStr, $ref: isStr, $anchor: (v) => isStr(v) && /^[A-Za-z_][-A-Za-z0-9._]*$/.test(v as string),
  $dynamicRef: isStr, $dynamicAnchor: (v) => isStr(v) && /^[A-Za-z_][-A-Za-z0-9._]*$/.test(v as string), $comment: isStr,
  $vocabulary: (v) => isObj(v) && Object.values(v).every(isBool), $defs: "schemaMap", definitions: "schemaMap",
  $recursiveRef: isStr, $recursiveAnchor: isBool,
  prefixItems: "schemas", items: "schema", contains: "schema", additionalProperties: "schema", properties: "schemaMap",
  patternProperties: "schemaMap", dependentSchemas: "schemaMap", propertyNames: "schema", if: "schema", then: "schema", else: "schema",
  allOf: "schemas", anyOf: "schemas", oneOf: "schemas", not: "schema", unevaluatedItems: "schema", unevaluatedProperties: "schema",
  contentSchema: "schema",
  type: (v) => (isStr(v) ? TYPES.has(v as string) : Array.isArray(v) && v.length > 0 && v.every((t) => isStr(t) && TYPES.has(t)) && new Set(v).size === v.length),
  enum: Array.isArray, multipleOf: (v) => isNum(v) && (v as number) > 0,
  maximum: isNum, exclusiveMaximum: isNum, minimum: isNum, exclusiveMinimum: isNum,
  maxLength: isNonNegInt, minLength: isNonNegInt, pattern: isStr, maxItems: isNonNegInt, minItems: isNonNegInt, uniqueItems: isBool,
  maxContains: isNonNegInt, minContains: isNonNegInt, maxProperties: isNonNegInt, minProperties: isNonNegInt, required: uniqueStrings,
  dependentRequired: (v) => isObj(v) && Object.values(v).every(uniqueStrings),
  title: isStr, description: isStr, deprecated: isBool, readOnly: isBool, writeOnly: isBool, examples: Array.isArray,
  format: isStr, contentEncoding: isStr, contentMediaType: isStr,
  discriminator: (v) => isObj(v) && isStr(v.propertyName) && (v.mapping === undefined || (isObj(v.mapping) && Object.values(v.mapping).every(isStr))),
  xml: (v) => isObj(v) && ["name", "namespace", "prefix"].every((k) => v[k] === undefined || isStr(v[k])) && ["attribute", "wrapped"].every((k) => v[k] === undefined || isBool(v[k])),
  externalDocs: (v) => isObj(v) && isStr(v.url) && (v.description === undefined || isStr(v.description)),
};

/** The first meta-schema violation as `path: keyword` (e.g. `/properties/x: required`), or null when the schema is well formed. */
export function schemaShapeError(schema: unknown, path = ""): string | null {
  if (isBool(schema)) return null;
  if (!isObj(schema)) return `${path || "/"}: a schema must be an object or a boolean`;
  for (const [k, v] of Object.entries(schema)) {
    const rule = Object.hasOwn(KEYWORDS, k) ? KEYWORDS[k]! : undefined;
    if (rule === undefined) continue;
    const at = `${path}/${k}`;
    if (rule === "schema") {
      const e = schemaShapeError(v, at);
      if (e) return e;
    } else if (rule === "schemas") {
      if (!Array.isArray(v) || v.length === 0) return `${at}: must be a non-empty list of schemas`;
      for (let i = 0; i < v.length; i++) {
        const e = schemaShapeError(v[i], `${at}/${i}`);
        if (e) return e;
      }
    } else if (rule === "schemaMap") {
      if (!isObj(v)) return `${at}: must be an object of schemas`;
      for (const [n, s] of Object.entries(v)) {
        const e = schemaShapeError(s, `${at}/${n}`);
        if (e) return e;
      }
    } else if (!rule(v)) return `${at}: invalid value ${JSON.stringify(v)?.slice(0, 80)}`;
  }
  // 2019-09's `dependencies` (kept by the 2020-12 meta-schema): each entry a schema or a list of unique names.
  if (Object.hasOwn(schema, "dependencies")) {
    const d = schema.dependencies;
    if (!isObj(d)) return `${path}/dependencies: must be an object`;
    for (const [n, s] of Object.entries(d)) {
      if (uniqueStrings(s)) continue;
      const e = schemaShapeError(s, `${path}/dependencies/${n}`);
      if (e) return e;
    }
  }
  return null;
}
