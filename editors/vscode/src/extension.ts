// The extension's entry: the commands the server cannot run itself (the clipboard, opening documents,
// quick picks) on top of the ctxmap language server.

import * as path from 'path';
import * as vscode from 'vscode';
import { EditorState, Pack, Target, contextArgs, copiedMessage, languageFor, parsePack, summarisePack, targetFromArgs, targetFromEditor } from './context';
import { showEntityMap } from './entitymap';
import { Chunk, chunkPicks, chunkSelection, entityPicks, insideRoot, parseEntities, parseExploration } from './explore';
import { Reported, Server, message } from './server';
import { statusDetails } from './status';

const commandIds = ['ctxmap.copyContext', 'ctxmap.showContext', 'ctxmap.exploreEntity', 'ctxmap.restartServer', 'ctxmap.showStatus', 'ctxmap.showEntityMap'];

let server: Server | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('ctxmap');
  const item = vscode.window.createStatusBarItem('ctxmap.status', vscode.StatusBarAlignment.Left, 0);
  item.name = 'ctxmap';
  const srv = new Server(output, item, commandIds, context.extensionPath);
  server = srv;
  let root = vscode.workspace.workspaceFolders?.[0]?.uri.toString();
  context.subscriptions.push(
    output,
    srv,
    vscode.commands.registerCommand('ctxmap.copyContext', (arg?: unknown) => run(() => copyContext(srv, arg))),
    vscode.commands.registerCommand('ctxmap.showContext', (arg?: unknown) => run(() => showContext(srv, arg))),
    vscode.commands.registerCommand('ctxmap.exploreEntity', (arg?: unknown) => run(() => exploreEntity(srv, arg))),
    vscode.commands.registerCommand('ctxmap.restartServer', () => run(() => srv.restart())),
    vscode.commands.registerCommand('ctxmap.showStatus', () => run(() => showStatus(srv, output))),
    vscode.commands.registerCommand('ctxmap.showEntityMap', (arg?: unknown) => run(() => showEntityMap(srv, arg))),
    vscode.workspace.onDidChangeConfiguration((e) => srv.configurationChanged(e)),
    countsFollowFiles(srv),
    // The server indexes the first folder: a different first folder needs a new server.
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      const first = vscode.workspace.workspaceFolders?.[0]?.uri.toString();
      if (first !== root) {
        root = first;
        void srv.restart();
      }
    }),
  );
  void srv.start();
}

// The server indexes files created or deleted outside the editor on its own and says nothing; the status
// bar's counts follow by asking again once such changes have settled.
const countsSettleMs = 1500;

function countsFollowFiles(srv: Server): vscode.Disposable {
  const watcher = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);
  let timer: NodeJS.Timeout | undefined;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void srv.refreshStatus(), countsSettleMs);
  };
  watcher.onDidCreate(changed);
  watcher.onDidDelete(changed);
  return new vscode.Disposable(() => {
    clearTimeout(timer);
    watcher.dispose();
  });
}

export function deactivate(): Promise<void> | undefined {
  return server?.stop();
}

async function copyContext(srv: Server, arg: unknown): Promise<void> {
  const pack = await requestPack(srv, arg);
  if (pack === undefined) {
    return;
  }
  await vscode.env.clipboard.writeText(pack.text);
  const text = copiedMessage(summarisePack(pack));
  if (pack.items.length === 0) {
    void vscode.window.showWarningMessage(`${text} (no code in the workspace matched)`);
  } else {
    void vscode.window.showInformationMessage(text);
  }
}

async function showContext(srv: Server, arg: unknown): Promise<void> {
  const pack = await requestPack(srv, arg);
  if (pack === undefined) {
    return;
  }
  const doc = await vscode.workspace.openTextDocument({ language: languageFor(srv.settings().format), content: pack.text });
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
}

async function requestPack(srv: Server, arg: unknown): Promise<Pack | undefined> {
  const target = targetFromArgs(arg) ?? (await targetFromActiveEditor(srv));
  if (target === undefined) {
    void vscode.window.showErrorMessage('ctxmap: select the text of an issue, or put the cursor in a comment or a Markdown section, then run the command again.');
    return undefined;
  }
  const args = contextArgs(target, srv.settings());
  const answer = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'ctxmap: building context' },
    () => srv.execute('ctxmap.context', args),
  );
  return parsePack(answer);
}

async function targetFromActiveEditor(srv: Server): Promise<Target | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) {
    return undefined;
  }
  await srv.start(); // the server's URI for the document comes from the running client
  const doc = editor.document;
  const state: EditorState = {
    uri: srv.protocolUri(doc.uri),
    // the server indexes the first folder only
    inWorkspace: doc.uri.scheme === 'file' && !doc.isUntitled && vscode.workspace.getWorkspaceFolder(doc.uri)?.index === 0,
    selection: editor.selection,
    active: editor.selection.active,
    selectedText: doc.getText(editor.selection),
  };
  return targetFromEditor(state);
}

async function exploreEntity(srv: Server, arg: unknown): Promise<void> {
  let name = typeof arg === 'object' && arg !== null && typeof (arg as { name?: unknown }).name === 'string' ? (arg as { name: string }).name : undefined;
  if (name === undefined) {
    const entities = parseEntities(await srv.execute('ctxmap.entities', { top: 200 }));
    if (entities.length === 0) {
      void vscode.window.showInformationMessage('ctxmap: no entities yet; the index may still be building.');
      return;
    }
    const pick = await vscode.window.showQuickPick(entityPicks(entities), { placeHolder: 'Entity to explore', matchOnDescription: false });
    if (pick === undefined) {
      return;
    }
    name = pick.value;
  }
  const exploration = parseExploration(await srv.execute('ctxmap.exploreEntity', { name, limit: 50 }));
  if (exploration.chunks.length === 0) {
    void vscode.window.showInformationMessage(`ctxmap: no code mentions ${name}.`);
    return;
  }
  const chunk = await vscode.window.showQuickPick(chunkPicks(exploration), {
    placeHolder: `Code about ${exploration.entity || name}`,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (chunk !== undefined) {
    await openChunk(srv, chunk.value);
  }
}

async function openChunk(srv: Server, chunk: Chunk): Promise<void> {
  const root = srv.lastStatus?.root || (await srv.refreshStatus())?.root || vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!root) {
    throw new Error('the workspace root is unknown; open a folder first');
  }
  if (!insideRoot(chunk.path)) {
    throw new Error(`the server named a path outside the workspace: ${chunk.path}`);
  }
  const sel = chunkSelection(chunk);
  const editor = await vscode.window.showTextDocument(vscode.Uri.file(path.join(root, chunk.path)), {
    selection: new vscode.Range(sel.startLine, 0, sel.startLine, 0),
    preview: true,
  });
  editor.revealRange(new vscode.Range(sel.startLine, 0, sel.endLine, 0), vscode.TextEditorRevealType.AtTop);
}

async function showStatus(srv: Server, output: vscode.OutputChannel): Promise<void> {
  const status = await srv.refreshStatus();
  const state = srv.currentState();
  if (status === undefined) {
    const reason = state.kind === 'stopped' ? state.reason : 'ctxmap: the server did not answer ctxmap.status; see the ctxmap output';
    const choice = await vscode.window.showWarningMessage(reason, 'Restart Server', 'Show Output');
    if (choice === 'Restart Server') {
      await srv.restart();
    } else if (choice === 'Show Output') {
      output.show();
    }
    return;
  }
  const choice = await vscode.window.showInformationMessage(statusDetails(status), 'Show Output');
  if (choice === 'Show Output') {
    output.show();
  }
}

// Every command's failure becomes one message the user can act on, never an unhandled rejection.
async function run(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    if (err instanceof Reported) {
      return;
    }
    void vscode.window.showErrorMessage(`ctxmap: ${message(err)}`);
  }
}
