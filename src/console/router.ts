import { signal } from '@preact/signals';
import type { AnchorHTMLAttributes, ComponentChildren, ComponentType } from 'preact';
import { h } from 'preact';

/**
 * The console's screens by path (history API: /wallboard, /account …). The server answers every such path with
 * the console's page, so a screen can be bookmarked and reloaded. A screen is a component, or a function that
 * imports one (its own chunk, loaded when first shown: part 2's report screens with charts should be).
 */
export interface Screen {
  /** `/reports/:id` style: `:name` matches one segment. */
  readonly path: string;
  readonly title: string;
  readonly component?: ComponentType<{ params: Record<string, string> }>;
  readonly load?: () => Promise<{ default: ComponentType<{ params: Record<string, string> }> }>;
  /** Shown without a session (sign-in, TV mode). */
  readonly public?: boolean;
  /** The permission the screen needs (its API calls would be refused without it); the menu leaves it out then. */
  readonly permission?: string;
  /** Its label in the menu; none: not in the menu. */
  readonly nav?: string;
  /** The menu's group it is listed under (Live, Reports, Directory, PBX); none: a top-level entry. */
  readonly group?: string;
  /** Full screen without the console's header and menu (TV mode). */
  readonly bare?: boolean;
}

export const path = signal(location.pathname);

addEventListener('popstate', () => (path.value = location.pathname));

export function navigate(to: string, replace = false): void {
  const url = new URL(to, location.href);
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  path.value = url.pathname;
}

/** The screen of a path and its parameters; undefined when none matches. */
export function matchScreen(screens: readonly Screen[], pathname: string): { screen: Screen; params: Record<string, string> } | undefined {
  const parts = pathname.replace(/\/+$/, '').split('/');
  for (const screen of screens) {
    const pattern = screen.path.replace(/\/+$/, '').split('/');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const ok = pattern.every((p, i) => {
      const part = parts[i] ?? '';
      if (p.startsWith(':')) {
        params[p.slice(1)] = decodeURIComponent(part);
        return part !== '';
      }
      return p === part;
    });
    if (ok) return { screen, params };
  }
  return undefined;
}

/** A link to a screen: a real <a href> (opens in a new tab, copies), followed without a page load on a plain click. */
export function Link(props: { href: string; children: ComponentChildren } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const { href, children, ...rest } = props;
  const current = path.value === href;
  return h(
    'a',
    {
      ...rest,
      href,
      'aria-current': current ? 'page' : undefined,
      onClick: (e: MouseEvent) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(href);
      },
    },
    children,
  );
}

/** A local path to come back to after signing in (never another site's: `//host`, `/\\host` or `https:`). */
export function safeNext(next: string | null): string {
  return next && /^\/(?![/\\])[^\\]*$/.test(next) && !next.startsWith('/sign-in') ? next : '/';
}
