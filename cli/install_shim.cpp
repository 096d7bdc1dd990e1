// install/uninstall for the agents that load a JS shim instead of running hook commands
// (docs/cli.md#install): OpenCode and Pi.
#include "cli/cli.hpp"
#include "hook/table.hpp"
#include "util/files.hpp"
#include "util/json_writer.hpp"

namespace mem0::cli {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view k_config_line = "const CONFIG = ";

// {"bin":<exe_dir>,"hooks":[{"event","executable","matcher","timeout_ms","once"}…]}: `once` for
// the session-start rows, which the shim runs at a session's first event only.
std::string config_json(const Agent &agent, const fs::path &exe_dir) {
  JsonWriter w;
  w.begin_object().member("bin", exe_dir.string()).key("hooks").begin_array();
  for (const HookSpec &h : hooks_of(agent.name)) {
    w.begin_object().member("event", h.event).member("executable", h.executable);
    w.member("matcher", h.matcher).key("timeout_ms").int64(h.timeout_seconds * 1000);
    w.key("once").boolean(h.kind == Event::session_start).end_object();
  }
  w.end_array().end_object();
  return w.text();
}

// Where `agent`'s memory tools are registered for this install; empty for none (Pi's shim
// serves them itself).
fs::path tools_file(const Agent &agent, const Args &args, const CliContext &ctx) {
  if (agent.files.mcp_file.empty() || args.has("--settings")) return {};
  if (args.has("--project")) return ctx.cwd / agent.files.mcp_file;
  return agent_dir(agent, ctx.config, ctx.env) / agent.files.mcp_file;
}

} // namespace

bool is_our_shim(std::string_view text, const Agent &agent) {
  return text.find("mem0-hooks install --agent " + std::string(agent.name)) !=
             std::string_view::npos &&
         text.find(k_config_line) != std::string_view::npos;
}

std::string configured_shim(const Agent &agent, const fs::path &exe_dir) {
  std::string text(shim_source(agent.name));
  const auto at = text.find(k_config_line);
  if (at == std::string::npos) return text;
  const auto end = text.find('\n', at);
  return text.replace(at, end - at, std::string(k_config_line) + config_json(agent, exe_dir) + ";");
}

int install_shim(const Agent &agent, const Args &args, const CliContext &ctx, bool uninstall) {
  const char *verb = uninstall ? "uninstall" : "install";
  fs::path target = agent_dir(agent, ctx.config, ctx.env) / agent.files.user_file;
  if (args.has("--project")) target = ctx.cwd / agent.files.project_file;
  if (auto path = args.value("--settings")) target = fs::absolute(*path);
  const std::string shim = configured_shim(agent, ctx.exe_dir);
  if (args.has("--dry-run")) {
    if (!uninstall) ctx.out << shim;
    return k_ok;
  }
  std::error_code ec;
  const bool existed = fs::exists(target, ec);
  const auto current = existed ? read_small_file(target) : std::optional<std::string>("");
  if (!current) {
    ctx.err << "mem0-hooks " << verb << ": cannot read " << target.string() << "\n";
    return k_failure;
  }
  if (existed && !is_our_shim(*current, agent)) {
    ctx.err << "mem0-hooks " << verb << ": " << target.string()
            << " is not a mem0 shim; left untouched\n";
    return k_failure;
  }
  int status = k_ok;
  if (uninstall) {
    if (!existed) {
      ctx.out << "mem0-hooks uninstall: no mem0 shim at " << target.string()
              << "; nothing to remove\n";
    } else if (fs::remove(target, ec); ec) {
      ctx.err << "mem0-hooks uninstall: cannot remove " << target.string() << ": " << ec.message()
              << "\n";
      status = k_failure;
    } else {
      ctx.out << "removed the mem0 shim " << target.string() << "\n";
    }
  } else if (existed && *current == shim) {
    ctx.out << "mem0-hooks install: " << target.string() << " already up to date\n";
  } else if (auto made = ensure_private_dir(target.parent_path()); !made) {
    ctx.err << "mem0-hooks install: " << made.error().message << "\n";
    status = k_failure;
  } else if (auto written = write_file_atomic(target, shim); !written) {
    ctx.err << "mem0-hooks install: " << written.error().message << "\n";
    status = k_failure;
  } else {
    ctx.out << "wrote the mem0 shim " << target.string() << "\n";
  }
  if (const fs::path tools = tools_file(agent, args, ctx); !tools.empty())
    status = std::max(status, install_memory_tools(tools, ctx, uninstall));
  if (!uninstall && status == k_ok)
    ctx.out << "next: " << agent.files.install_note << "; `mem0-hooks doctor` checks the setup\n";
  return status;
}

} // namespace mem0::cli
