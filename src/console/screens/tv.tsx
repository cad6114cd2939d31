import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import type { WallboardLive } from '../types';
import { clockTime, now, serverNow, zoneName } from '../time';
import { Board } from '../wallboard/board';
import { LiveModel } from '../wallboard/model';

/**
 * TV mode: the wallboard of a read-only wallboard link (/tv#<token>; after # the token never reaches a server's
 * log), full screen, large type, no controls, reconnecting by itself. The token is sent as a bearer credential to
 * GET /v2/wallboard/live and its stream, the only routes that take it; revoked, the screen says so and stops.
 * `f` (or a click) asks the browser for full screen.
 */
export default function Tv() {
  const token = useMemo(() => decodeURIComponent(location.hash.replace(/^#/, '')), []);
  const [name, setName] = useState('Wallboard');
  const [dead, setDead] = useState<string | null>(
    token ? null : 'This address has no wallboard link: ask a supervisor for the link of this screen.',
  );
  const model = useMemo(() => new LiveModel(), []);
  useEffect(() => {
    if (!token) return;
    const headers = { authorization: `Bearer ${token}` };
    api
      .get<WallboardLive>('/v2/wallboard/live', undefined, headers)
      .then((w) => {
        setName(w.name);
        document.title = `${w.name} · TARS`;
      })
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 401) setDead(err.message);
      });
    model.open('/v2/wallboard/live/stream', headers);
    const full = (e: Event) => {
      if (e instanceof KeyboardEvent && e.key !== 'f') return;
      if (!document.fullscreenElement) void document.documentElement.requestFullscreen?.().catch(() => undefined);
    };
    // Another link's address typed into the same screen: start afresh with its token.
    const other = () => location.reload();
    addEventListener('keydown', full);
    addEventListener('click', full);
    addEventListener('hashchange', other);
    return () => {
      model.stop();
      removeEventListener('keydown', full);
      removeEventListener('click', full);
      removeEventListener('hashchange', other);
    };
  }, []);
  const refused = dead ?? model.refused.value;
  const zone = model.state.value?.queues[0]?.today.timezone ?? 'UTC';
  return (
    <main class="tv" id="main">
      <header class="tv-head">
        <h1 tabIndex={-1}>{name}</h1>
        {model.state.value && (
          <p class="tv-clock">
            <time>{clockTime(serverNow(now.value), zone)}</time> <span>{zoneName(zone)}</span>
          </p>
        )}
      </header>
      {refused ? (
        <p class="banner banner-alert" role="alert">
          {refused}
        </p>
      ) : (
        <Board model={model} zone={zone} tv />
      )}
    </main>
  );
}
