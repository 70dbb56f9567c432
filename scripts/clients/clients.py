"""How each client is set up for one scripted session: its settings, written into the
session's own folder (never the user's), with tabwire as its one MCP server, its model
API pointed at the fake model, and the command line that runs it without a human.

`setup(name, binary, folder, mcp, model_url, prompt)` returns (argv, env). `mcp` is the
MCP server's command line (the recording tap around `tabwire mcp --launch`).
"""

import json
import os

DUMMY_KEY = "client-check-not-a-key"


def claude(binary, folder, mcp, model_url, prompt):
    config = os.path.join(folder, "mcp.json")
    with open(config, "w") as f:
        json.dump({"mcpServers": {"tabwire": {"command": mcp[0], "args": mcp[1:]}}}, f)
    argv = [binary, "-p", prompt, "--mcp-config", config, "--strict-mcp-config",
            "--allowedTools", "mcp__tabwire__*", "--output-format", "json"]
    env = {
        "ANTHROPIC_BASE_URL": model_url,
        "ANTHROPIC_API_KEY": DUMMY_KEY,
        # Offer MCP tools in the request itself, not behind its tool-search tool.
        "ENABLE_TOOL_SEARCH": "false",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "MCP_TIMEOUT": "60000",
        "MCP_TOOL_TIMEOUT": "120000",
    }
    return argv, env


def codex(binary, folder, mcp, model_url, prompt):
    home = os.path.join(folder, "codex-home")
    os.makedirs(home)
    toml = lambda value: json.dumps(value)  # a JSON string or list of strings is valid TOML
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(f"""model = "gpt-5.2-codex"
model_provider = "fake"

[model_providers.fake]
name = "client-check fake model"
base_url = {toml(model_url + "/v1")}
env_key = "FAKE_MODEL_KEY"
wire_api = "responses"

[mcp_servers.tabwire]
command = {toml(mcp[0])}
args = {toml(mcp[1:])}
startup_timeout_sec = 60
tool_timeout_sec = 120
""")
    argv = [binary, "exec", "--skip-git-repo-check", "-C", os.path.join(folder, "work"),
            "--dangerously-bypass-approvals-and-sandbox", prompt]
    return argv, {"CODEX_HOME": home, "FAKE_MODEL_KEY": DUMMY_KEY}


def gemini(binary, folder, mcp, model_url, prompt):
    settings = {
        "mcpServers": {"tabwire": {"command": mcp[0], "args": mcp[1:], "trust": True, "timeout": 120000}},
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "telemetry": {"enabled": False},
    }
    os.makedirs(os.path.join(folder, "home", ".gemini"), exist_ok=True)
    with open(os.path.join(folder, "home", ".gemini", "settings.json"), "w") as f:
        json.dump(settings, f, indent=1)
    argv = [binary, "-p", prompt, "--yolo", "--output-format", "json"]
    return argv, {"GEMINI_API_KEY": DUMMY_KEY, "GOOGLE_GEMINI_BASE_URL": model_url}


SETUPS = {"claude": claude, "codex": codex, "gemini": gemini}


def setup(name, binary, folder, mcp, model_url, prompt):
    """(argv, env) for client `name`: env is the whole environment, nothing inherited but
    PATH and the locale, HOME a folder of the session's own."""
    for sub in ("home", "work", "tmp"):
        os.makedirs(os.path.join(folder, sub), exist_ok=True)
    argv, own = SETUPS[name](binary, folder, mcp, model_url, prompt)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": os.environ.get("LANG", "C.UTF-8"),
           "HOME": os.path.join(folder, "home"), "TERM": "dumb", "NO_COLOR": "1"}
    env.update(own)
    return argv, env
