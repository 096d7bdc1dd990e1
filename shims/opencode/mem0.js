// mem0 for OpenCode (docs/agents.md#opencode): pipes each plugin hook to the mem0 executables
// and adds what they print where the model reads it. No dependencies; no memory logic here.
// `mem0-hooks install --agent opencode` writes shims/core.js (with its CONFIG line filled in:
// the executables' directory and the hook table's rows for OpenCode) and then this, as one file.

export const Mem0 = async (ctx) => {
  const base = (name, sessionID) => ({ hook_event_name: name, sessionID,
                                       directory: ctx.directory, worktree: ctx.worktree });
  const guard = (fn) => async (...args) => {
    try {
      await fn(...args);
    } catch (e) {
      log(`hook failed: ${e && e.message}`);
    }
  };
  return {
    "chat.message": guard(async (input, output) => {
      const payload = { ...base("chat.message", input.sessionID), parts: output.parts };
      for (const text of await contexts("chat.message", "", payload, input.sessionID))
        output.parts.push({ id: `prt_mem0${Date.now()}${Math.random().toString(36).slice(2, 8)}`,
                            sessionID: input.sessionID, messageID: output.message.id,
                            type: "text", text, synthetic: true });
    }),
    "tool.execute.after": guard(async (input, output) => {
      const payload = { ...base("tool.execute.after", input.sessionID), tool: input.tool,
                        callID: input.callID, args: input.args, output };
      for (const text of await contexts("tool.execute.after", input.tool, payload, input.sessionID))
        output.output = `${output.output ?? ""}\n\n${text}`;
    }),
    "experimental.text.complete": guard(async (input, output) => {
      await contexts("experimental.text.complete", "",
                     { ...base("experimental.text.complete", input.sessionID),
                       messageID: input.messageID, text: output.text }, input.sessionID);
    }),
    // Our commands (opencode.json's `command`): the CLI's output replaces the command's text.
    "command.execute.before": guard(async (input, output) => {
      const text = await userCommand(input.command, input.arguments);
      if (text !== null) output.parts.splice(0, output.parts.length, { type: "text", text });
    }),
    event: guard(async ({ event }) => {
      const sessionID = event.properties && event.properties.sessionID;
      if (event.type === "session.idle")
        await contexts("session.idle", "", base("session.idle", sessionID), sessionID);
    }),
  };
};
