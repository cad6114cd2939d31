import { join } from 'node:path';
import type { LiveStreamOptions } from '../../src/modules/live-queues/live-stream';
import { readFixtureFile, seedFixture } from '../../src/seed/seed';
import { AmiPeer } from './ami-peer';
import { amiTranscript } from './ami-transcript';
import { startTestApp, TestClock, type TestApp } from './app';
import { FIXTURES } from './fixtures';
import { until } from './until';

/** The recorded run's site: tenant 1, queues sales (1), support (2), billing (3), extensions 201–209. */
export const ASTERISK_FIXTURE = join(FIXTURES, 'asterisk', 'fixture.json');

export interface LiveSite {
  readonly app: TestApp;
  readonly peer: AmiPeer;
  /** The app's clock, at the recording's first QueueStatus. */
  readonly clock: TestClock;
  /** Resolves once TARS has applied everything the peer sent before (an AMI Ping answered after it). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The real app on the recorded run's site, its AMI link (TARS_AMI_URL) to an AMI peer replaying the run,
 * connected and with its first snapshot taken: what every test of the live layer starts from.
 */
export async function startLiveSite(opts: { env?: Record<string, string>; liveStreams?: LiveStreamOptions } = {}): Promise<LiveSite> {
  const transcript = amiTranscript();
  const peer = new AmiPeer(transcript);
  await peer.listen();
  const clock = new TestClock(transcript.checkpoints[0]?.at.getTime());
  const app = await startTestApp({ clock, env: { TARS_AMI_URL: peer.url, ...opts.env }, liveStreams: opts.liveStreams });
  await seedFixture(app.deps.database, app.deps.validator, await readFixtureFile(ASTERISK_FIXTURE), new Date());
  app.deps.live.start();
  await until(() => app.deps.live.pbxs[0]?.snapshotAt, { what: 'the first snapshot' });
  return {
    app,
    peer,
    clock,
    settle: async () => void (await app.deps.live.pbxs[0]?.client.action({ Action: 'Ping' })),
    async close() {
      await peer.close();
      await app.close();
    },
  };
}
