/**
 * Blackjack as upstream's `resources_servers/blackjack` plays it: ranks dealt uniformly with
 * replacement (`rng.choice`), aces 11 or 1, the dealer draws to 17, reward +1 win / 0 draw / −1 loss or bust.
 */
import type { PyRandom } from "../../util/py-random.ts";
import { pyRegex } from "../../util/py-regex.ts";

const DECISION = pyRegex("<action>\\s*(hit|stand)\\s*</action>", { ignoreCase: true });
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

/** One episode's cards. */
export interface BlackjackState {
  player: string[];
  dealer: string[];
  rng: PyRandom;
}

/** A step's outcome. */
export interface BlackjackStep {
  observation: string | null;
  reward: number;
  terminated: boolean;
  info: Record<string, unknown>;
}

function deal(rng: PyRandom): string {
  return RANKS[rng.randbelow(RANKS.length)]!;
}

/** Best total of a hand: aces count 11 until the hand would bust. */
export function handValue(hand: string[]): number {
  let total = hand.reduce((s, r) => s + (r === "J" || r === "Q" || r === "K" ? 10 : r === "A" ? 11 : Number.parseInt(r, 10)), 0);
  let aces = hand.filter((r) => r === "A").length;
  while (total > 21 && aces > 0) {
    total -= 10;
    aces--;
  }
  return total;
}

/** Python's `"[" + ", ".join(hand) + "]"`. */
export function formatHand(hand: string[]): string {
  return `[${hand.join(", ")}]`;
}

function prompt(player: string[], dealer: string[]): string {
  // Upstream indexes dealer[0]: a hit in an episode that was never reset fails the same way (500).
  if (dealer.length === 0) throw new Error("IndexError: list index out of range (the episode was not reset; call /reset first)");
  return `Your hand: ${formatHand(player)} = ${handValue(player)}\nDealer shows: ${dealer[0]}\nRespond with <action>hit</action> or <action>stand</action>.`;
}

/** Deal two cards each (player first) and the first observation. */
export function dealBlackjack(rng: PyRandom): { state: BlackjackState; observation: string } {
  const player = [deal(rng), deal(rng)];
  const dealer = [deal(rng), deal(rng)];
  return { state: { player, dealer, rng }, observation: prompt(player, dealer) };
}

/** The decision in a reply: the first `<action>hit|stand</action>` (any case), else stand. */
export function blackjackDecision(text: string): "hit" | "stand" {
  const m = DECISION.search(text);
  return m ? (m[1]!.toLowerCase() as "hit" | "stand") : "stand";
}

/** Apply one decision. */
export function blackjackStep(state: BlackjackState, decision: "hit" | "stand"): BlackjackStep {
  const { player, dealer, rng } = state;
  if (decision === "hit") {
    player.push(deal(rng));
    const value = handValue(player);
    if (value > 21) return { observation: null, reward: -1.0, terminated: true, info: { result: "bust", player: formatHand(player), value } };
    return { observation: prompt(player, dealer), reward: 0.0, terminated: false, info: {} };
  }
  while (handValue(dealer) < 17) dealer.push(deal(rng));
  const pv = handValue(player);
  const dv = handValue(dealer);
  const [reward, result] = dv > 21 || pv > dv ? [1.0, "win"] : pv === dv ? [0.0, "draw"] : [-1.0, "loss"];
  return { observation: null, reward, terminated: true, info: { result, player: formatHand(player), player_value: pv, dealer: formatHand(dealer), dealer_value: dv } };
}
