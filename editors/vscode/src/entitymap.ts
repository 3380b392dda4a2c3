// ctxmap: Show Entity Map: the server's entity map in a web view whose file links open the files.

import * as path from 'path';
import * as vscode from 'vscode';
import { insideRoot } from './explore';
import { Server } from './server';

let panel: vscode.WebviewPanel | undefined;

// showEntityMap asks the server for the map (around one entity when arg names it) and shows it.
export async function showEntityMap(srv: Server, arg: unknown): Promise<void> {
  const entity = typeof arg === 'object' && arg !== null && typeof (arg as { entity?: unknown }).entity === 'string' ? (arg as { entity: string }).entity : undefined;
  const answer = (await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'ctxmap: drawing the entity map' },
    () => srv.execute('ctxmap.entityMap', entity === undefined ? {} : { entity }),
  )) as { html?: unknown } | undefined;
  if (typeof answer?.html !== 'string') {
    throw new Error('the server answered ctxmap.entityMap without a page');
  }
  if (panel === undefined) {
    panel = vscode.window.createWebviewPanel('ctxmap.entityMap', 'ctxmap: Entity Map', vscode.ViewColumn.Active, {
      enableScripts: true,
      retainContextWhenHidden: true,
    });
    panel.onDidDispose(() => (panel = undefined));
    panel.webview.onDidReceiveMessage((msg: { open?: unknown; line?: unknown }) => {
      if (typeof msg?.open === 'string') {
        void openFile(srv, msg.open, typeof msg.line === 'number' ? msg.line : 1).catch((err) =>
          vscode.window.showErrorMessage(`ctxmap: ${err instanceof Error ? err.message : String(err)}`),
        );
      }
    });
  }
  panel.webview.html = answer.html;
  panel.reveal();
}

async function openFile(srv: Server, rel: string, line: number): Promise<void> {
  const root = srv.lastStatus?.root || (await srv.refreshStatus())?.root || vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!root) {
    throw new Error('the workspace root is unknown; open a folder first');
  }
  if (!insideRoot(rel)) {
    throw new Error(`the map named a path outside the workspace: ${rel}`);
  }
  const at = new vscode.Position(Math.max(line - 1, 0), 0);
  await vscode.window.showTextDocument(vscode.Uri.file(path.join(root, rel)), {
    selection: new vscode.Range(at, at),
    viewColumn: vscode.ViewColumn.Beside,
  });
}
