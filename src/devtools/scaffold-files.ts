/**
 * The files of a scaffolded resources server, in upstream's layout (components.md §1.1): config
 * YAML with the server block and an agent that owns a 5-row example dataset, the example rows,
 * README with a licensing block, requirements.txt, data/.gitignore, app.py and its unit tests.
 */
import { appPy, testAppPy } from "./scaffold-app.ts";

const WORDS = ["apple", "banana", "cherry", "kiwi", "watermelon"];

/** The 5 example rows: a developer and a user message, the tool, and `expected_answer` for verify. */
export function exampleRows(): Record<string, unknown>[] {
  return WORDS.map((word, id) => ({
    id,
    responses_create_params: {
      input: [
        { role: "developer", content: "Use the get_word_length tool, then answer with the number only." },
        { role: "user", content: `How many letters are in the word "${word}"?` },
      ],
      tools: [
        {
          type: "function",
          name: "get_word_length",
          description: "Get the number of letters of a word.",
          parameters: { type: "object", properties: { word: { type: "string", description: "The word." } }, required: ["word"], additionalProperties: false },
          strict: true,
        },
      ],
    },
    expected_answer: String(word.length),
  }));
}

/** `configs/<name>.yaml`: the server block plus `<name>_simple_agent` with the example dataset. */
export function configYaml(name: string): string {
  return `# ${name}: the resources server and the agent that owns its datasets.
# Run it: gym env start --resources-server ${name} --model-type scripted_model
${name}:
  resources_servers:
    ${name}:
      entrypoint: app.py
      domain: other
      verified: false
      description: ${name} (describe what this environment teaches)
${name}_simple_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.py
      resources_server:
        type: resources_servers
        name: ${name}
      model_server:
        type: responses_api_models
        name: policy_model
      datasets:
      - name: example
        type: example
        jsonl_fpath: resources_servers/${name}/data/example.jsonl
`;
}

/** `README.md`: what the server is, how gym runs it, how to test it, and the licensing block. */
export function readme(name: string): string {
  return `# ${name}

A resources server for gym (NeMo Gym compatible layout). Describe here what the environment
teaches, what a task row holds, and how the reward is computed.

## How gym runs it

\`${name}\` is not built into the gym binary, so gym runs it as an **external server**: from this
directory it starts \`app.py\` with \`.venv/bin/python\` when this directory has a \`.venv\`,
otherwise with \`python_executable\` (default \`python3\`). \`app.py\` uses the Python standard
library only, so no install step is needed; if you add dependencies, list them in
\`requirements.txt\` and create \`.venv\` (\`gym env packages --resources-server ${name}\` lists it).
gym passes the merged config in \`NEMO_GYM_CONFIG_DICT\` and the instance name in
\`NEMO_GYM_CONFIG_PATH\`; \`app.py\` reads its host and port from there.

From the directory that holds \`resources_servers/\` (or anywhere, with \`--search-dir <that directory>\`):

\`\`\`bash
gym env start --resources-server ${name} --model-type scripted_model
gym eval run --resources-server ${name} --model-type scripted_model --split example -o results/${name}.jsonl
\`\`\`

## Test it

\`\`\`bash
gym env test --resources-server ${name}
\`\`\`

checks the example data (\`data/example.jsonl\` with 5 rows, \`data/example_metrics.json\`,
\`data/example_rollouts.jsonl\`, no \`*conflict*\` files), runs \`tests/\` with this server's Python,
and runs the 5 example rows end to end against gym's offline \`scripted_model\`. Create the two
generated files with:

\`\`\`bash
gym dataset collate --resources-server ${name} --mode example_validation --output-dir results/${name}_collate
gym eval run --resources-server ${name} --model-type <your model> --split example -o results/${name}_example/rollouts.jsonl
cp results/${name}_example/rollouts.jsonl resources_servers/${name}/data/example_rollouts.jsonl
\`\`\`

# Licensing information
Code: Apache 2.0
Data: Apache 2.0

Dependencies
- Python standard library
`;
}

/** Every file of the scaffold: relative path → content. */
export function scaffoldFiles(name: string): Record<string, string> {
  return {
    "app.py": appPy(name),
    [`configs/${name}.yaml`]: configYaml(name),
    "data/example.jsonl": `${exampleRows().map((r) => JSON.stringify(r)).join("\n")}\n`,
    "data/.gitignore": "*train.jsonl\n*validation.jsonl\n*_prepare.jsonl\n",
    "requirements.txt": "# app.py needs only the Python standard library; add your dependencies here.\n",
    "README.md": readme(name),
    "tests/test_app.py": testAppPy(),
  };
}
