// Extensions imported `with { type: "text" }` by files.gen.ts that bun-types does not declare.
declare module "*.jsonl" {
  const text: string;
  export default text;
}
declare module "*.py" {
  const text: string;
  export default text;
}
declare module "*.md" {
  const text: string;
  export default text;
}
declare module "*.sh" {
  const text: string;
  export default text;
}
declare module "*.jinja" {
  const text: string;
  export default text;
}
declare module "*.csv" {
  const text: string;
  export default text;
}
