import type { ComponentChildren } from 'preact';
import { Link, type Screen } from '../router';
import { can, session, signOut, user } from '../session';
import { zoneName } from '../time';

/** The console around a screen: a skip link, the menu of the screens the user may open, who is signed in. */
export function Layout(props: { screens: readonly Screen[]; children: ComponentChildren }) {
  const menu = props.screens.filter((s) => s.nav && (!s.permission || can(s.permission)));
  const tenant = session.value?.tenant;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/" class="brand" aria-label="TARS console, home">
          TARS
        </Link>
        <nav aria-label="Console">
          <ul>
            {menu.map((s) => (
              <li key={s.path}>
                <Link href={s.path}>{s.nav}</Link>
              </li>
            ))}
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
