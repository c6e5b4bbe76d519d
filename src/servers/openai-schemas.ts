/**
 * Request and response schemas of the OpenAI-shaped routes (runtime.md §9.1), mirroring
 * upstream's pydantic models closely enough that the same bodies pass and fail: the Responses
 * create params are strict (`extra="forbid"`), the chat create params drop unknown keys, and
 * `NeMoGymResponse` is what an agent accepts back from a model server.
 */
import Type, { type Static, type TProperties } from "typebox";

const Json = Type.Unknown();
const Obj = <P extends TProperties>(props: P, extra = true) => Type.Object(props, { additionalProperties: extra });

/** Training token fields allowed on any item (§9.5). */
const tokenFields = {
  prompt_token_ids: Type.Optional(Type.Array(Type.Integer())),
  generation_token_ids: Type.Optional(Type.Array(Type.Integer())),
  generation_log_probs: Type.Optional(Type.Array(Type.Number())),
  routed_experts: Type.Optional(Json),
};

/** A message input item, easy form (`{role, content}`) or full form. */
export const InputMessage = Obj({
  type: Type.Optional(Type.Literal("message")),
  role: Type.Union([Type.Literal("user"), Type.Literal("assistant"), Type.Literal("system"), Type.Literal("developer")]),
  content: Type.Union([Type.String(), Type.Array(Obj({ type: Type.String() }))]),
  ...tokenFields,
});

/** A `function_call` item. */
export const FunctionCallItem = Obj({
  type: Type.Literal("function_call"),
  call_id: Type.String(),
  name: Type.String(),
  arguments: Type.String(),
  ...tokenFields,
});

/** A `function_call_output` item. */
export const FunctionCallOutputItem = Obj({
  type: Type.Literal("function_call_output"),
  call_id: Type.String(),
  output: Type.Union([Type.String(), Type.Array(Obj({ type: Type.String() }))]),
});

/** A `reasoning` item (no `status` required on input). */
export const ReasoningItem = Obj({
  type: Type.Literal("reasoning"),
  summary: Type.Array(Obj({ type: Type.String(), text: Type.String() })),
  ...tokenFields,
});

/** Any other typed item (MCP and built-in tool items) passes through. */
const OtherItem = Obj({ type: Type.String() });

/** One Responses input item. */
export const InputItem = Type.Union([InputMessage, FunctionCallItem, FunctionCallOutputItem, ReasoningItem, OtherItem]);

/** A tool definition (`{type:"function", name, parameters, strict?, description?}` or a built-in tool). */
export const Tool = Obj({ type: Type.String() });

/** Upstream `NeMoGymResponseCreateParamsNonStreaming` (extra keys forbidden). */
export const ResponseCreateParams = Type.Object(
  {
    background: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    include: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
    input: Type.Union([Type.String(), Type.Array(InputItem)]),
    instructions: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    max_output_tokens: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    max_tool_calls: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
    model: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    parallel_tool_calls: Type.Optional(Type.Boolean()),
    previous_response_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    prompt: Type.Optional(Type.Union([Json, Type.Null()])),
    reasoning: Type.Optional(Type.Union([Obj({}), Type.Null()])),
    service_tier: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    store: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    temperature: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    text: Type.Optional(Type.Union([Obj({}), Type.Null()])),
    tool_choice: Type.Optional(Json),
    tools: Type.Optional(Type.Array(Tool)),
    top_logprobs: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    top_p: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    truncation: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    user: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    stream: Type.Optional(Type.Union([Type.Literal(false), Type.Null()])),
  },
  { additionalProperties: false },
);
/** Responses create params as received. */
export type ResponseCreateParams = Static<typeof ResponseCreateParams> & { input: string | Record<string, unknown>[]; tools?: Record<string, unknown>[] };

/** Keys the create-params schema accepts (others are dropped before forwarding stream bodies). */
export const RESPONSE_CREATE_KEYS = Object.keys(ResponseCreateParams.properties);

/** A chat message (loosely typed: roles and content shapes vary by provider). */
const ChatMessage = Obj({ role: Type.String() });

/** Upstream `NeMoGymChatCompletionCreateParamsNonStreaming` (unknown keys dropped, not rejected). */
export const ChatCompletionCreateParams = Type.Object(
  {
    messages: Type.Array(ChatMessage),
    model: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    stream: Type.Optional(Type.Union([Type.Literal(false), Type.Null()])),
    n: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    max_tokens: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    max_completion_tokens: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    temperature: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    top_p: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    tools: Type.Optional(Type.Union([Type.Array(Obj({ type: Type.String() })), Type.Null()])),
    tool_choice: Type.Optional(Json),
    parallel_tool_calls: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    logprobs: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    top_logprobs: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
  },
  { additionalProperties: true },
);
/** Chat create params as received. */
export type ChatCompletionCreateParams = Static<typeof ChatCompletionCreateParams> & { messages: Record<string, unknown>[] } & Record<string, unknown>;

/** Upstream `NeMoGymResponse`: what a model server must answer on `/v1/responses`. */
export const NeMoGymResponse = Type.Object(
  {
    id: Type.String(),
    created_at: Type.Number(),
    model: Type.String(),
    object: Type.Literal("response"),
    output: Type.Array(Obj({ type: Type.String() })),
    parallel_tool_calls: Type.Boolean(),
    tool_choice: Json,
    tools: Type.Array(Json),
    incomplete_details: Type.Optional(Type.Union([Obj({}), Type.Null()])),
    usage: Type.Optional(
      Type.Union([
        Obj({
          input_tokens: Type.Integer(),
          output_tokens: Type.Integer(),
          total_tokens: Type.Integer(),
          input_tokens_details: Obj({ cached_tokens: Type.Union([Type.Integer(), Type.Null()]) }),
          output_tokens_details: Obj({ reasoning_tokens: Type.Union([Type.Integer(), Type.Null()]) }),
        }),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: true },
);
/** A Responses API response object. */
export type NeMoGymResponse = Static<typeof NeMoGymResponse> & Record<string, unknown> & { output: Record<string, unknown>[] };

/** Responses usage block. */
export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number | null };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number | null };
  total_tokens: number;
}
