// Owns telling the monitoring runtime that a check, alarm or entity changed, so it reloads what it caches.

/** One change, after its transaction committed. */
export interface MonitoringChange {
  readonly kind: 'entity' | 'check' | 'alarm';
  readonly op: 'create' | 'update' | 'delete';
  readonly tenant: string;
  /** The entity of the object (the entity itself for kind 'entity'). */
  readonly entityId: string;
  readonly id: string;
}

/** A listener of changes; it must not throw (a throw is caught and dropped, the write already committed). */
export type ChangeListener = (change: MonitoringChange) => void;

/** Listeners of monitoring object changes; synchronous, in registration order. */
export class ChangeFeed {
  private readonly listeners: ChangeListener[] = [];

  /** Adds a listener; returns a function that removes it. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  /** Tells every listener about a committed change. */
  emit(change: MonitoringChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // A listener's failure must not fail the write that already committed.
      }
    }
  }
}
