// The language server process, `ctxmap serve --stdio`: starting it, asking it commands, and keeping the
// status bar item in step with its indexing.

import * as vscode from 'vscode';
import {
  CancellationToken,
  ClientCapabilities,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  FeatureState,
  LanguageClient,
  LanguageClientOptions,
  ProgressToken,
  RegistrationParams,
  ServerCapabilities,
  State,
  StaticFeature,
  WorkDoneProgressBegin,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from 'vscode-languageclient/node';
import type { Settings } from './context';
import { bundledBinary, findBinary, installCommand, missingBinaryMessage, readSettings, serverOptions } from './settings';
import { ServerStatus, StatusState, parseStatus, stateFromStatus, statusText, statusTooltip } from './status';

const noFolder = 'open a folder first: ctxmap indexes the workspace';

// While the server says it is still indexing and sends no progress, ask again this often.
const statusPollMs = 2000;

export class Server implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private state: StatusState = { kind: 'starting' };
  private progress = new Set<ProgressToken>();
  private pollTimer: NodeJS.Timeout | undefined;
  private settingsProblems = ''; // told once, not at every command
  lastStatus: ServerStatus | undefined;

  constructor(
    private readonly output: vscode.OutputChannel,
    private readonly item: vscode.StatusBarItem,
    private readonly clientCommands: string[],
    private readonly extensionPath?: string,
  ) {
    item.command = 'ctxmap.showStatus';
    this.show({ kind: 'starting' });
  }

  settings(): Settings {
    const { settings, problems } = readSettings((key) => vscode.workspace.getConfiguration('ctxmap').get(key));
    const said = problems.join('\n');
    if (said !== this.settingsProblems) {
      this.settingsProblems = said;
      for (const p of problems) {
        this.output.appendLine(p);
        void vscode.window.showWarningMessage(p);
      }
    }
    return settings;
  }

  start(): Promise<void> {
    if (this.starting === undefined) {
      this.starting = this.launch();
    }
    return this.starting;
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.starting = undefined;
    this.progress.clear();
    clearTimeout(this.pollTimer);
    if (client !== undefined && client.state !== State.Stopped) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.output.appendLine(`stopping the server: ${message(err)}`);
      }
    }
    this.show({ kind: 'stopped', reason: 'The ctxmap language server is stopped' });
  }

  async restart(): Promise<void> {
    await this.stop();
    this.show({ kind: 'starting' });
    await this.start();
  }

  // workspace/executeCommand with one argument (none when arg is undefined); the answer as sent.
  async execute(command: string, arg?: unknown): Promise<unknown> {
    if (vscode.workspace.workspaceFolders === undefined || vscode.workspace.workspaceFolders.length === 0) {
      throw new Error(noFolder);
    }
    await this.start();
    const client = this.client;
    if (client === undefined) {
      throw new Reported();
    }
    if (client.state !== State.Running) {
      throw new Error(`the ctxmap server is not running (${this.stoppedReason()}); run "ctxmap: Restart Server"`);
    }
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: arg === undefined ? [] : [arg] });
  }

  // The URI the server knows a document by: the same conversion the client uses for didOpen.
  protocolUri(uri: vscode.Uri): string {
    return this.client !== undefined ? this.client.code2ProtocolConverter.asUri(uri) : uri.toString();
  }

  configurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration('ctxmap')) {
      return;
    }
    if (e.affectsConfiguration('ctxmap.path')) {
      void this.restart();
      return;
    }
    if (['budget', 'format', 'tokenizer'].some((k) => e.affectsConfiguration(`ctxmap.${k}`))) {
      const client = this.client;
      if (client !== undefined && client.state === State.Running) {
        void client.sendNotification(DidChangeConfigurationNotification.type, { settings: serverOptions(this.settings()) }).catch((err) => {
          this.output.appendLine(`sending the settings: ${message(err)}`);
        });
      }
    }
  }

  async refreshStatus(): Promise<ServerStatus | undefined> {
    clearTimeout(this.pollTimer);
    let status: ServerStatus;
    try {
      status = parseStatus(await this.execute('ctxmap.status'));
    } catch (err) {
      if (!(err instanceof Reported)) {
        this.output.appendLine(`ctxmap.status: ${message(err)}`);
      }
      return undefined;
    }
    this.lastStatus = status;
    const state = stateFromStatus(status);
    if (state.kind === 'indexing') {
      // The progress, when there is some, says more than "indexing".
      if (this.progress.size === 0) {
        this.show(state);
      }
      this.pollTimer = setTimeout(() => void this.refreshStatus(), statusPollMs);
    } else {
      this.show(state);
    }
    return status;
  }

  currentState(): StatusState {
    return this.state;
  }

  dispose(): void {
    void this.stop();
    this.item.dispose();
  }

  private async launch(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (folder === undefined) {
      // Without a folder the server would index whatever its working directory is.
      this.starting = undefined;
      this.show({ kind: 'stopped', reason: noFolder });
      return;
    }
    const setting = vscode.workspace.getConfiguration('ctxmap').get<string>('path') ?? 'ctxmap';
    const bundled = this.extensionPath === undefined ? undefined : bundledBinary(this.extensionPath);
    const bin = bundled ?? findBinary(setting, process.env, folder.uri.fsPath);
    if (bin === undefined) {
      const text = missingBinaryMessage(setting);
      this.output.appendLine(text);
      this.starting = undefined; // the next command looks again: the user may have installed it
      this.show({ kind: 'stopped', reason: text });
      void vscode.window.showErrorMessage(text, 'Copy Install Command', 'Open Settings').then((choice) => {
        if (choice === 'Copy Install Command') {
          void vscode.env.clipboard.writeText(installCommand);
        } else if (choice === 'Open Settings') {
          void vscode.commands.executeCommand('workbench.action.openSettings', 'ctxmap.path');
        }
      });
      return;
    }
    this.output.appendLine(`starting ${bin} serve --stdio`);
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.output,
      initializationOptions: serverOptions(this.settings()),
      middleware: {
        handleWorkDoneProgress: (token, params, next) => {
          next(token, params);
          this.onProgress(token, params);
        },
        handleRegisterCapability: async (params, next) => {
          await next(this.withoutClientCommands(params), CancellationToken.None);
        },
      },
    };
    const client = new LanguageClient(
      'ctxmap',
      'ctxmap',
      { command: bin, args: ['serve', '--stdio'], options: { cwd: folder.uri.fsPath } },
      clientOptions,
    );
    client.registerFeature(new ClientCommandNames(this.clientCommands));
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Stopped) {
        this.progress.clear();
        this.show({ kind: 'stopped', reason: 'The ctxmap language server stopped; see the ctxmap output' });
      } else if (e.newState === State.Running) {
        void this.refreshStatus(); // also after the client restarted a crashed server
      }
    });
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      if (this.client !== client) {
        return; // stopped while starting: nothing to report
      }
      const text = `ctxmap: the language server did not start: ${message(err)}`;
      this.output.appendLine(text);
      this.client = undefined;
      this.starting = undefined;
      this.show({ kind: 'stopped', reason: text });
      void vscode.window.showErrorMessage(text, 'Show Output').then((choice) => {
        if (choice === 'Show Output') {
          this.output.show();
        }
      });
      return;
    }
  }

  private onProgress(token: ProgressToken, params: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd): void {
    switch (params.kind) {
      case 'begin':
      case 'report':
        this.progress.add(token);
        this.show({ kind: 'indexing', percentage: params.percentage, message: params.message });
        break;
      case 'end':
        this.progress.delete(token);
        if (this.progress.size === 0) {
          void this.refreshStatus();
        }
        break;
    }
  }

  private withoutClientCommands(params: RegistrationParams): RegistrationParams {
    return {
      registrations: params.registrations.map((r) => {
        const opts = r.registerOptions as { commands?: string[] } | undefined;
        if (r.method !== ExecuteCommandRequest.method || !Array.isArray(opts?.commands)) {
          return r;
        }
        return { ...r, registerOptions: { ...opts, commands: opts.commands.filter((c) => !this.clientCommands.includes(c)) } };
      }),
    };
  }

  private show(state: StatusState): void {
    this.state = state;
    if (state.kind === 'stopped' && state.reason === noFolder) {
      this.item.hide(); // nothing to say in a window without a folder
      return;
    }
    this.item.show();
    this.item.text = statusText(state);
    this.item.tooltip = statusTooltip(state);
  }

  private stoppedReason(): string {
    return this.state.kind === 'stopped' ? this.state.reason : 'it is not ready';
  }
}

// The client library registers a VS Code command for each command the server lists; the server's
// ctxmap.exploreEntity shares its name with the extension's own, so the listed names the extension
// registers itself are dropped before the library sees them (a duplicate would fail the start).
class ClientCommandNames implements StaticFeature {
  constructor(private readonly names: string[]) {}

  fillClientCapabilities(_capabilities: ClientCapabilities): void {}

  preInitialize(capabilities: ServerCapabilities): void {
    const provider = capabilities.executeCommandProvider;
    if (provider !== undefined && Array.isArray(provider.commands)) {
      provider.commands = provider.commands.filter((c) => !this.names.includes(c));
    }
  }

  initialize(): void {}

  getState(): FeatureState {
    return { kind: 'static' };
  }

  clear(): void {}
}

// A failure the user has already been told about (the server could not start): not shown again.
export class Reported extends Error {
  constructor() {
    super('already reported');
  }
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
