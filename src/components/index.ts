/** Registers every built-in component with the registry (imported by the child-process entry). */
import { registerBuiltin } from "./registry.ts";

registerBuiltin("resources_servers", "example_single_tool_call", async () => (await import("./resources/example-single-tool-call.ts")).component);
registerBuiltin("resources_servers", "example_multi_step", async () => (await import("./resources/example-multi-step.ts")).component);
registerBuiltin("resources_servers", "example_session_state_mgmt", async () => (await import("./resources/example-session-state-mgmt.ts")).component);
registerBuiltin("responses_api_agents", "simple_agent", async () => (await import("./agents/simple-agent.ts")).component);
registerBuiltin("responses_api_models", "openai_model", async () => (await import("./models/openai-model.ts")).component);
registerBuiltin("responses_api_models", "vllm_model", async () => (await import("./models/vllm-model.ts")).component);
registerBuiltin("responses_api_models", "azure_openai_model", async () => (await import("./models/azure-openai-model.ts")).component);
registerBuiltin("responses_api_models", "scripted_model", async () => (await import("./models/scripted-model.ts")).component);
registerBuiltin("environment_servers", "single_agent_turn", async () => (await import("./environments/single-agent-turn.ts")).component);
registerBuiltin("environment_servers", "legacy_agent", async () => (await import("./environments/legacy-agent.ts")).component);
registerBuiltin("environment_servers", "single_agent_turn_legacy", async () => (await import("./environments/single-agent-turn.ts")).legacyComponent);
registerBuiltin("resources_servers", "mcqa", async () => (await import("./resources/mcqa.ts")).component);
registerBuiltin("resources_servers", "gpqa_diamond", async () => (await import("./resources/mcqa.ts")).gpqaDiamondComponent);
registerBuiltin("resources_servers", "equivalence_llm_judge", async () => (await import("./resources/equivalence-llm-judge.ts")).component);
registerBuiltin("resources_servers", "code_gen", async () => (await import("./resources/code-gen.ts")).component);
registerBuiltin("resources_servers", "example_tool_call_multireward", async () => (await import("./resources/example-tool-call-multireward.ts")).component);
registerBuiltin("resources_servers", "xlam_fc", async () => (await import("./resources/xlam-fc.ts")).component);
registerBuiltin("resources_servers", "calendar", async () => (await import("./resources/calendar.ts")).component);
registerBuiltin("resources_servers", "equivalence_rule", async () => (await import("./resources/equivalence-rule.ts")).component);
registerBuiltin("resources_servers", "math_advanced_calculations", async () => (await import("./resources/math-advanced-calculations.ts")).component);
registerBuiltin("resources_servers", "arc_agi", async () => (await import("./resources/arc-agi.ts")).component);
registerBuiltin("resources_servers", "circle_click", async () => (await import("./resources/circle-click.ts")).component);
registerBuiltin("resources_servers", "circle_count", async () => (await import("./resources/circle-count.ts")).component);
registerBuiltin("resources_servers", "string_match", async () => (await import("./resources/string-match.ts")).component);
registerBuiltin("resources_servers", "gui_coordinate", async () => (await import("./resources/gui-coordinate.ts")).component);
