// Owns the console's DOM builder: elements from tag, attributes and children, text always through text nodes (never innerHTML).

/** Attributes of a built element: strings set as attributes, `false`/`undefined` skipped, `true` as an empty attribute. */
export type Attributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** A child: a node, or text (placed in a text node, so API data can never become markup). */
export type Child = Node | string | null | undefined | false;

/** A new element with attributes and children; `class` and `data-*` are plain attributes. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: readonly Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, ...children);
  return element;
}

/** Appends children (text as text nodes). */
export function append(parent: Node, ...children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** Replaces every child of `parent`. */
export function replaceChildren(parent: Element, ...children: readonly Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** How long a search input waits after the last keystroke before it searches (ms); the one debounce of typed input. */
export const INPUT_DEBOUNCE_MS = 300;

/** Calls `action` once `waitMs` passed without another call (resize, typing). */
export function debounce(action: () => void, waitMs: number): { call(): void; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    call() {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        action();
      }, waitMs);
    },
    cancel() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
