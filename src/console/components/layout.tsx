import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Link, path, type Screen } from '../router';
import { can, session, signOut, user } from '../session';
import { zoneName } from '../time';

/** The menu's entries: a screen of its own, or a group of screens behind one button. */
type Entry = { readonly screen: Screen } | { readonly group: string; readonly screens: readonly Screen[] };

/** The screens the user may open, grouped in the order their first screen comes in SCREENS. */
export function menuOf(screens: readonly Screen[]): Entry[] {
  const entries: Entry[] = [];
  for (const s of screens) {
    if (!s.nav || (s.permission && !can(s.permission))) continue;
    if (!s.group) {
      entries.push({ screen: s });
      continue;
    }
    const found = entries.find((e) => 'group' in e && e.group === s.group);
    if (found && 'group' in found) (found.screens as Screen[]).push(s);
    else entries.push({ group: s.group, screens: [s] });
  }
  return entries;
}

/**
 * A group of the menu: a button that shows and hides its screens (a disclosure, as the WAI-ARIA practices' navigation
 * menu; Escape closes it and gives focus back). The group of the screen on show is marked.
 */
function MenuGroup(props: { group: string; screens: readonly Screen[]; open: boolean; onToggle: (open: boolean) => void }) {
  const button = useRef<HTMLButtonElement>(null);
  const id = `menu-${props.group.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const current = props.screens.some((s) => s.path === path.value);
  return (
    <li
      class="menu-group"
      onKeyDown={(e) => {
        if (e.key !== 'Escape' || !props.open) return;
        props.onToggle(false);
        button.current?.focus();
      }}
    >
      <button
        ref={button}
        type="button"
        class={`menu-button${current ? ' current' : ''}`}
        aria-expanded={props.open}
        aria-controls={id}
        onClick={() => props.onToggle(!props.open)}
      >
        {props.group}
        {current && <span class="visually-hidden"> (current section)</span>}
      </button>
      <ul id={id} class="submenu" hidden={!props.open}>
        {props.screens.map((s) => (
          <li key={s.path}>
            <Link href={s.path}>{s.nav}</Link>
          </li>
        ))}
      </ul>
    </li>
  );
}

/** The console around a screen: a skip link, the menu of the screens the user may open, who is signed in. */
export function Layout(props: { screens: readonly Screen[]; children: ComponentChildren }) {
  const menu = menuOf(props.screens);
  const tenant = session.value?.tenant;
  const [open, setOpen] = useState<string | null>(null);
  const nav = useRef<HTMLElement>(null);
  // A group closes once one of its screens is chosen, and when a click or focus lands outside the menu.
  useEffect(() => setOpen(null), [path.value]);
  useEffect(() => {
    if (!open) return;
    const away = (e: Event) => {
      if (!nav.current?.contains(e.target as Node)) setOpen(null);
    };
    document.addEventListener('pointerdown', away);
    document.addEventListener('focusin', away);
    return () => {
      document.removeEventListener('pointerdown', away);
      document.removeEventListener('focusin', away);
    };
  }, [open]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/" class="brand" aria-label="TARS console, home">
          TARS
        </Link>
        <nav aria-label="Console" ref={nav}>
          <ul>
            {menu.map((e) =>
              'group' in e ? (
                <MenuGroup
                  key={e.group}
                  group={e.group}
                  screens={e.screens}
                  open={open === e.group}
                  onToggle={(o) => setOpen(o ? e.group : null)}
                />
              ) : (
                <li key={e.screen.path}>
                  <Link href={e.screen.path}>{e.screen.nav}</Link>
                </li>
              ),
            )}
          </ul>
        </nav>
        <div class="who">
          <span class="who-name">
            {user.value?.email}
            {tenant && <span class="who-tenant">{` · ${tenant.name} · ${zoneName(tenant.timezone)}`}</span>}
          </span>
          <button type="button" class="quiet" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {props.children}
      </main>
    </>
  );
}
