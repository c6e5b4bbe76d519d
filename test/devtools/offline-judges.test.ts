/** gym env test's offline judges: every judge of the selected server goes to policy_model; unused judge instances are dropped. */
import { describe, expect, test } from "bun:test";
import { offlineJudgeOverrides } from "../../src/devtools/example-run.ts";

const ref = (name: string) => ({ type: "responses_api_models", name });

describe("offlineJudgeOverrides", () => {
  test("a judge on its own instance is redirected and that instance removed", () => {
    const dict = {
      longmemeval: { resources_servers: { longmemeval: { judge_model_server: ref("judge_model") } } },
      judge_model: { responses_api_models: { openai_model: { openai_base_url: null } } },
      longmemeval_simple_agent: { responses_api_agents: { simple_agent: { model_server: ref("policy_model") } } },
    };
    expect(offlineJudgeOverrides(dict, "longmemeval")).toEqual(["++longmemeval.resources_servers.longmemeval.judge_model_server.name=policy_model", "~judge_model"]);
  });

  test("a judge instance something else still uses is kept; a judge already on policy_model is left alone", () => {
    const dict = {
      a: { resources_servers: { x: { judge_model_server: ref("judge_model") } } },
      b: { resources_servers: { x: { judge_model_server: ref("policy_model") } } },
      judge_model: { responses_api_models: { openai_model: {} } },
      agent: { responses_api_agents: { simple_agent: { model_server: ref("judge_model") } } },
    };
    expect(offlineJudgeOverrides(dict, "x")).toEqual(["++a.resources_servers.x.judge_model_server.name=policy_model"]);
  });

  test("servers of other implementations are not touched", () => {
    expect(offlineJudgeOverrides({ a: { resources_servers: { y: { judge_model_server: ref("j") } } }, j: {} }, "x")).toEqual([]);
  });
});
