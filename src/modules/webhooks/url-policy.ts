import { BlockList, isIP } from 'node:net';

/**
 * Which addresses webhook deliveries may reach (the operator's choice, TARS_WEBHOOK_ALLOW / _DENY): a list
 * of CIDR ranges, single addresses and host names. By default everything is allowed except link-local and
 * cloud metadata addresses, so a tenant admin cannot make the appliance read 169.254.169.254. When an allow
 * list is set, only what it names is reachable. The deny list always wins. Every address a host name
 * resolves to is checked when the connection is made (src/modules/webhooks/deliver.ts), so DNS cannot be
 * used to slip past it.
 */
export const DEFAULT_DENY = ['169.254.0.0/16', 'fe80::/10', '100.100.100.200', 'fd00:ec2::254', '0.0.0.0/8', '224.0.0.0/4', 'ff00::/8'];

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
    else if (bits === undefined) list.addAddress(addr, family === 6 ? 'ipv6' : 'ipv4');
    else list.addSubnet(addr, Number(bits), family === 6 ? 'ipv6' : 'ipv4');
  }
  return { list, hosts };
}

/** Throws on an entry that is neither a host name nor an address/CIDR. */
export function parsePolicyList(text: string | undefined, fallback: readonly string[] = []): string[] {
  if (text === undefined) return [...fallback];
  const entries = text.split(',').map((s) => s.trim()).filter(Boolean);
  for (const e of entries) {
    const [addr, bits] = e.split('/') as [string, string | undefined];
    const family = isIP(addr);
    const okBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if ((family === 0 && (bits !== undefined || !/^[a-z0-9.-]+$/i.test(addr))) || !okBits) throw new Error(`"${e}" is not a host name, an IP address or a CIDR range`);
  }
  return entries;
}

const has = (r: Rules, address: string) => {
  const family = isIP(address);
  if (family === 0) return false;
  const plain = address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');
  return r.list.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
};

export function createUrlPolicy(allow: readonly string[], deny: readonly string[]): UrlPolicy {
  const allowRules = rules(allow);
  const denyRules = rules(deny);
  return {
    denied(hostname, address) {
      const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
      const ip = isIP(host) ? host : address;
      if (denyRules.hosts.has(host)) return `${host} is on the webhook deny list`;
      if (ip !== undefined && has(denyRules, ip)) return `${ip} is not a permitted webhook destination (deny list)`;
      if (allow.length === 0 || allowRules.hosts.has(host)) return null;
      if (ip === undefined) return null; // decided when the name is resolved
      return has(allowRules, ip) ? null : `${ip} is not on the webhook allow list`;
    },
  };
}
