// The holi extension: starts `holi lsp` for .holi files and shows each check's
// verdict in the status bar. Everything else (diagnostics, lenses, hover, formatting,
// the server's commands) comes from the language server itself.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

/**
 * The settings the server reads (`lang/editors.md`), from the `holi` section; a bound or
 * a thread count left unset is sent as null, which sets it back on the server.
 */
function settings() {
  const config = vscode.workspace.getConfiguration("holi");
  const set = {
    timeoutSeconds: config.get("timeoutSeconds"),
    maxMemoryMiB: config.get("maxMemoryMiB"),
    checkOnOpen: config.get("checkOnOpen"),
    checkOnSave: config.get("checkOnSave"),
  };
  for (const number of ["k", "l", "jobs"]) {
    const value = config.get(number);
    set[number] = Number.isInteger(value) && value > 0 ? value : null;
  }
  return set;
}

/** Asks for a bound, from 1; undefined when the user gives up. */
async function askBound(name, meaning) {
  const answer = await vscode.window.showInputBox({
    prompt: `holi: the bound ${name} (${meaning})`,
    validateInput: (text) => (/^[1-9][0-9]*$/.test(text) ? null : "a whole number from 1"),
  });
  return answer === undefined ? undefined : Number(answer);
}

function activate(context) {
  const command = vscode.workspace.getConfiguration("holi").get("path") || "holi";
  client = new LanguageClient(
    "holi",
    "holi",
    { command, args: ["lsp"] },
    {
      documentSelector: [{ language: "holi" }],
      // A function, so that a server the client restarts gets the settings of then.
      initializationOptions: () => settings(),
    }
  );

  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left);
  status.command = "holi.client.showVerdict";
  context.subscriptions.push(status);
  const verdicts = new Map();
  const showVerdictOf = (editor) => {
    const verdict = editor && verdicts.get(editor.document.uri.toString());
    if (!verdict) {
      status.hide();
      return;
    }
    const icon = {
      unsafe: "$(error)",
      proved: "$(pass-filled)",
      safe: "$(pass)",
      checking: "$(sync~spin)",
    }[verdict.state] || "$(question)";
    status.text = `${icon} holi: ${verdict.state}`;
    status.tooltip = verdict.summary || verdict.state;
    status.show();
  };

  context.subscriptions.push(
    vscode.window.onDidChangeActiveTextEditor(showVerdictOf),
    vscode.workspace.onDidChangeConfiguration((change) => {
      if (change.affectsConfiguration("holi")) {
        client.sendNotification("workspace/didChangeConfiguration", {
          settings: { holi: settings() },
        });
      }
    }),
    vscode.commands.registerCommand("holi.client.showVerdict", () => {
      const editor = vscode.window.activeTextEditor;
      if (editor) {
        return vscode.commands.executeCommand("holi.showVerdict", editor.document.uri.toString());
      }
    }),
    vscode.commands.registerCommand("holi.client.checkWithBounds", async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.languageId !== "holi") {
        return;
      }
      const k = await askBound("k", "library frames open at once");
      const l = k && (await askBound("l", "the client's calls per frame"));
      if (k && l) {
        await vscode.commands.executeCommand("holi.check", editor.document.uri.toString(), { k, l });
      }
    }),
    vscode.commands.registerCommand("holi.client.equiv", async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.languageId !== "holi") {
        return;
      }
      const picked = await vscode.window.showOpenDialog({
        canSelectMany: false,
        filters: { HOLi: ["holi"] },
        openLabel: "Compare",
      });
      if (picked && picked.length === 1) {
        await vscode.commands.executeCommand(
          "holi.equiv",
          editor.document.uri.toString(),
          picked[0].toString()
        );
      }
    })
  );

  client.onNotification("holi/verdict", (verdict) => {
    // A verdict about an older version than the one shown says nothing about this one.
    const shown = verdicts.get(verdict.uri);
    if (shown && verdict.version < shown.version) {
      return;
    }
    verdicts.set(verdict.uri, verdict);
    showVerdictOf(vscode.window.activeTextEditor);
  });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
