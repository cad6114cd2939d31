import type { ComponentChildren, ComponentType } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Layout } from './components/layout';
import { matchScreen, navigate, path, type Screen } from './router';
import { homeOf, SCREENS } from './screens';
import { can, loadSession, session } from './session';

type ScreenComponent = ComponentType<{ params: Record<string, string> }>;

function Message(props: { title: string; children: ComponentChildren }) {
  return (
    <section class="screen narrow">
      <h1>{props.title}</h1>
      {props.children}
    </section>
  );
}

/** A screen, its code loaded when first shown; the page's title follows it, and focus moves to it after a navigation. */
function ScreenView(props: { screen: Screen; params: Record<string, string> }) {
  const { screen } = props;
  const [loaded, setLoaded] = useState<{ screen: Screen; component: ScreenComponent } | undefined>(
    screen.component ? { screen, component: screen.component } : undefined,
  );
  const [failed, setFailed] = useState<string | null>(null);
  const first = useRef(true);
  useEffect(() => {
    document.title = `${screen.title} · TARS`;
    if (screen.component) setLoaded({ screen, component: screen.component });
    else if (screen.load && loaded?.screen !== screen)
      screen
        .load()
        .then((m) => setLoaded({ screen, component: m.default }))
        .catch(() => setFailed('This screen could not be loaded: check the connection and reload the page.'));
  }, [screen]);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    (document.querySelector('main h1, .bare h1') as HTMLElement | null)?.focus();
  }, [loaded]);
  if (failed) return <Message title={screen.title}>{failed}</Message>;
  if (!loaded || loaded.screen !== screen) return <p class="loading">Loading…</p>;
  const Component = loaded.component;
  return <Component params={props.params} />;
}

export function App() {
  const found = matchScreen(SCREENS, path.value);
  const s = session.value;
  // A public screen (sign-in, TV mode) asks nothing of the server until it must: a TV never sends a cookie.
  useEffect(() => {
    if (!found?.screen.public && s === undefined) void loadSession();
  }, [found?.screen]);

  useEffect(() => {
    if (found?.screen.public || s === undefined) return;
    if (s === null) navigate(`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`, true);
    else if (path.value === '/') navigate(homeOf(can), true);
  }, [found?.screen, s, path.value]);

  if (found?.screen.public) {
    return found.screen.bare ? (
      <div class="bare">
        <ScreenView screen={found.screen} params={found.params} />
      </div>
    ) : (
      <main id="main" class="public" tabIndex={-1}>
        <ScreenView screen={found.screen} params={found.params} />
      </main>
    );
  }
  if (!s) return <p class="loading">Loading…</p>;
  let body;
  if (!found) {
    body =
      path.value === '/' ? (
        <p class="loading">Loading…</p>
      ) : (
        <Message title="Not found">
          <p>There is no such screen in the console.</p>
        </Message>
      );
  } else if (found.screen.permission && !can(found.screen.permission)) {
    body = (
      <Message title={found.screen.title}>
        <p>Your role does not allow this screen ({found.screen.permission}).</p>
      </Message>
    );
  } else body = <ScreenView screen={found.screen} params={found.params} />;
  return <Layout screens={SCREENS}>{body}</Layout>;
}
