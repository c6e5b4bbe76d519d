/** Placeholder commands for parts of the tree that later issues deliver. */
import { GymError, EXIT_USAGE } from "../errors.ts";
import { defineGymCommand, type GymArgDef, type GymCommand } from "./_command.ts";

/** A command that parses its flags, then says it is not implemented yet and exits 2. */
export function notImplemented(name: string, description: string, owner: string, args: Record<string, GymArgDef> = {}): GymCommand {
  return defineGymCommand({
    meta: { name, description: `${description} (not implemented yet)` },
    args,
    async run() {
      throw new GymError(`\`gym ${name}\` is not implemented yet`, {
        code: "E_NOT_IMPLEMENTED",
        hint: `tracked by the ${owner} issue`,
        exitCode: EXIT_USAGE,
      });
    },
  });
}
