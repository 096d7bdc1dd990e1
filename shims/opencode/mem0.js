// mem0 for OpenCode (docs/agents.md#opencode): pipes each plugin hook to the mem0 executables
// and adds what they print where the model reads it. No dependencies; no memory logic here.
// `mem0-hooks install --agent opencode` writes shims/core.js (with its CONFIG line filled in:
// the executables' directory and the hook table's rows for OpenCode) and then this, as one file.

// The bus events with rows (the `event` hook), their payloads with the session's latest
// messages: the turn's reply at session.idle, the summary at session.compacted.
const BUS_EVENTS = ["session.idle", "session.compacted"];
const MESSAGE_COUNT = 20; // the last message, and a summary just written, are among them
const FETCH_MS = 3000;

export const Mem0 = async (ctx) => {
  const pending = new Set();
  const track = (work) => {
    pending.add(work);
    work.finally(() => pending.delete(work));
    return work;
  };
  // The session's last MESSAGE_COUNT messages (`[{info, parts}]`, oldest first) from OpenCode's
  // own client; [] on any failure (logged).
  const latestMessages = async (id) => {
    let timer;
    try {
      const late = new Promise((resolve) => (timer = setTimeout(resolve, FETCH_MS, "late")));
      const answer = await Promise.race([
        ctx.client.session.messages({ path: { id }, query: { limit: MESSAGE_COUNT } }), late]);
      if (answer && Array.isArray(answer.data)) return answer.data;
      const why = answer === "late" ? `no answer in ${FETCH_MS} ms`
                                    : JSON.stringify((answer && answer.error) || "no list");
      log(`session messages: ${why}`);
    } catch (e) {
      log(`session messages: ${e && e.message}`);
    } finally {
      clearTimeout(timer);
    }
    return [];
  };
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
    // Our commands (opencode.json's `command`): the CLI's output replaces the command's text.
    "command.execute.before": guard(async (input, output) => {
      const text = await userCommand(input.command, input.arguments);
      if (text !== null) output.parts.splice(0, output.parts.length, { type: "text", text });
    }),
    // The bus's events reach plugins without being awaited: the work is kept in `pending`, which
    // dispose (awaited when OpenCode exits, `opencode run` right after session.idle) waits for.
    event: (input) => track(guard(async () => {
      const event = (input && input.event) || {};
      if (!BUS_EVENTS.includes(event.type) || !CONFIG.hooks.some((h) => h.event === event.type))
        return;
      const sessionID = event.properties && event.properties.sessionID;
      const payload = { ...base(event.type, sessionID), messages: await latestMessages(sessionID) };
      await contexts(event.type, "", payload, sessionID);
    })()),
    dispose: guard(async () => {
      await Promise.allSettled([...pending]);
    }),
  };
};
