import type * as vscode from 'vscode';

/** Disposes every item, then throws one error naming all that failed. */
export function disposeAll(items: Iterable<vscode.Disposable>): void {
  const errors: unknown[] = [];
  for (const item of items) {
    try {
      item.dispose();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, 'several disposables failed');
}

/** Base for objects that own disposables: `_register` them, and `dispose` releases them all. */
export abstract class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposed = false;

  protected _register<T extends vscode.Disposable>(item: T): T {
    if (this.disposed) item.dispose();
    else this.owned.push(item);
    return item;
  }

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    disposeAll(this.owned.splice(0));
  }
}
