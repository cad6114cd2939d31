// Outbound network policy: infrastructure, as src/mail/ is, so that the configuration (src/config.ts) can check
// TARS_WEBHOOK_ALLOW and TARS_WEBHOOK_DENY without knowing the webhooks module that delivers through it.
import { BlockList, isIP } from 'node:net';

/**
 * Which addresses webhook deliveries may reach: a list of CIDR ranges, single addresses and host names.
 * DEFAULT_DENY always applies: loopback and the unspecified addresses (a tenant admin must not make the
 * server probe its own ports), link-local and cloud metadata addresses, multicast. Private LAN ranges stay
 * allowed (an on-premises CRM is a normal receiver). The operator's TARS_WEBHOOK_DENY adds to the
 * defaults and always wins. TARS_WEBHOOK_ALLOW, when set, makes only what it names reachable, and naming
 * something there explicitly wins over DEFAULT_DENY (the way to allow a receiver on loopback). IPv4-mapped
 * and -compatible IPv6 addresses (::ffff:127.0.0.1) are judged as the IPv4 address they carry. Every
 * address a host name resolves to is checked when the connection is made (src/modules/webhooks/deliver.ts),
 * so DNS cannot be used to slip past it.
 */
export const DEFAULT_DENY = [
  '127.0.0.0/8',
  '::1/128',
  '0.0.0.0/8',
  '::/128',
  '169.254.0.0/16',
  'fe80::/10',
  '100.100.100.200',
  'fd00:ec2::254',
  '224.0.0.0/4',
  'ff00::/8',
];

export interface UrlPolicy {
  /**
   * Why a delivery to `hostname`, connecting to `address`, is not allowed, or null. Without an address
   * (when a webhook is saved) only what the host name alone decides is checked; a literal IP is checked in full.
   */
  denied(hostname: string, address?: string): string | null;
}

interface Rules {
  list: BlockList;
  hosts: Set<string>;
}

function rules(entries: readonly string[]): Rules {
  const list = new BlockList();
  const hosts = new Set<string>();
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    const [addr, bits] = entry.split('/') as [string, string | undefined];
    const family = isIP(addr);
    if (family === 0) hosts.add(entry);
    else if (bits === undefined) list.addAddress(plainAddress(addr), isIP(plainAddress(addr)) === 6 ? 'ipv6' : 'ipv4');
    else list.addSubnet(addr, Number(bits), family === 6 ? 'ipv6' : 'ipv4');
  }
  return { list, hosts };
}

/** Throws on an entry that is neither a host name nor an address/CIDR. */
export function parsePolicyList(text: string | undefined, fallback: readonly string[] = []): string[] {
  if (text === undefined) return [...fallback];
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const e of entries) {
    const [addr, bits] = e.split('/') as [string, string | undefined];
    const family = isIP(addr);
    const okBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if ((family === 0 && (bits !== undefined || !/^[a-z0-9.-]+$/i.test(addr))) || !okBits)
      throw new Error(`"${e}" is not a host name, an IP address or a CIDR range`);
  }
  return entries;
}

/** The eight 16-bit groups of an IPv6 address (with or without "::" and a dotted IPv4 tail). */
function groupsOf(ip: string): number[] {
  let text = ip;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = (dotted[1] as string).split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** An IPv6 address that carries an IPv4 one (::ffff:a.b.c.d, ::a.b.c.d) as that IPv4 address; others unchanged. */
export function plainAddress(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const g = groupsOf(ip);
  const zeros = g.slice(0, 5).every((x) => x === 0);
  const mapped = zeros && g[5] === 0xffff;
  const compatible = zeros && g[5] === 0 && ((g[6] ?? 0) !== 0 || (g[7] ?? 0) > 1);
  if (!mapped && !compatible) return ip;
  const hi = g[6] ?? 0;
  const lo = g[7] ?? 0;
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

const has = (r: Rules, address: string) => {
  const plain = plainAddress(address);
  const family = isIP(plain);
  return family !== 0 && r.list.check(plain, family === 6 ? 'ipv6' : 'ipv4');
};

export function createUrlPolicy(allow: readonly string[], deny: readonly string[]): UrlPolicy {
  // Built when first asked: the first isIP() of the process compiles Node's address patterns (2 ms of a start).
  let built: { allowRules: Rules; denyRules: Rules; defaultRules: Rules } | undefined;
  return {
    denied(hostname, address) {
      const { allowRules, denyRules, defaultRules } = (built ??= {
        allowRules: rules(allow),
        denyRules: rules(deny),
        defaultRules: rules(DEFAULT_DENY),
      });
      const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
      const ip = isIP(host) ? host : address;
      if (denyRules.hosts.has(host)) return `${host} is on the webhook deny list`;
      if (ip !== undefined && has(denyRules, ip)) return `${ip} is not a permitted webhook destination (deny list)`;
      if (allowRules.hosts.has(host) || (ip !== undefined && has(allowRules, ip))) return null; // named explicitly
      if (ip === undefined) return null; // decided when the name is resolved
      if (has(defaultRules, ip))
        return `${ip} is not a permitted webhook destination (default deny list: loopback, unspecified, link-local, metadata, multicast; TARS_WEBHOOK_ALLOW can name it)`;
      return allow.length > 0 ? `${ip} is not on the webhook allow list` : null;
    },
  };
}
