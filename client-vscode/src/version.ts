/** Version handshake between this extension and the chunkseam server. Pure. */

/** The oldest server this extension works with (first with `chunkseam/chunks`). */
export const MIN_SERVER_VERSION = "0.1.0";

interface Parsed {
  release: number[];
  /** Pre-releases (a, b, rc, dev, "-…") sort before the release. */
  pre: boolean;
}

/** Parse a PEP 440 or semver version string; undefined when it has no leading number. */
export function parseVersion(version: string): Parsed | undefined {
  const m = /^\s*v?(\d+(?:\.\d+)*)(.*)$/i.exec(version);
  if (!m) {
    return undefined;
  }
  const release = m[1].split(".").map((p) => Number.parseInt(p, 10));
  const rest = m[2].trim().toLowerCase();
  // ".post1" and "+local" are at or after the release; anything else is a pre-release.
  const pre = rest !== "" && !/^(\.?post\d*|\+.*)/.test(rest);
  return { release, pre };
}

/** Negative when a < b, 0 when equal, positive when a > b; undefined when unparseable. */
export function compareVersions(a: string, b: string): number | undefined {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (!pa || !pb) {
    return undefined;
  }
  const n = Math.max(pa.release.length, pb.release.length);
  for (let i = 0; i < n; i++) {
    const d = (pa.release[i] ?? 0) - (pb.release[i] ?? 0);
    if (d !== 0) {
      return d;
    }
  }
  if (pa.pre !== pb.pre) {
    return pa.pre ? -1 : 1;
  }
  return 0;
}

export type Handshake =
  | { ok: true; version: string }
  | { ok: false; reason: "too-old" | "unknown"; message: string };

/**
 * Judge the server's `serverInfo` from its initialize result. A server
 * older than MIN_SERVER_VERSION, or one that does not say its version, is
 * refused with a message naming both versions.
 */
export function checkServerVersion(
  serverInfo: { name?: string; version?: string } | undefined,
  extensionVersion: string,
  minimum: string = MIN_SERVER_VERSION,
): Handshake {
  const version = serverInfo?.version;
  if (!version) {
    return {
      ok: false,
      reason: "unknown",
      message:
        `The chunkseam server did not report its version; the chunkseam extension ${extensionVersion} ` +
        `needs chunkseam ${minimum} or newer. Upgrade with: pip install -U chunkseam`,
    };
  }
  const cmp = compareVersions(version, minimum);
  if (cmp === undefined || cmp < 0) {
    return {
      ok: false,
      reason: "too-old",
      message:
        `chunkseam ${version} is too old for the chunkseam extension ${extensionVersion}, ` +
        `which needs chunkseam ${minimum} or newer. Upgrade with: pip install -U chunkseam`,
    };
  }
  return { ok: true, version };
}
