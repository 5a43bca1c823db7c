import { crc32, deflateRawSync } from 'node:zlib'

/** One file of a test ZIP; `declaredSize` lies about the uncompressed size when set. */
export interface ZipEntry {
  name: string
  data: Buffer
  deflate?: boolean
}

/**
 * A minimal ZIP writer for tests (stored or deflated entries, no ZIP64), used to build
 * artifact bundles the CLI would never make: bad maps, missing manifests, zip bombs.
 */
export function zip(entries: ZipEntry[], prefix = Buffer.alloc(0)): Buffer {
  const local: Buffer[] = []
  const central: Buffer[] = []
  let offset = prefix.length
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8')
    const body = e.deflate === true ? deflateRawSync(e.data) : e.data
    const crc = crc32(e.data)
    const method = e.deflate === true ? 8 : 0
    const lh = Buffer.alloc(30)
    lh.writeUInt32LE(0x04034b50, 0)
    lh.writeUInt16LE(20, 4)
    lh.writeUInt16LE(0, 6)
    lh.writeUInt16LE(method, 8)
    lh.writeUInt32LE(0, 10)
    lh.writeUInt32LE(crc, 14)
    lh.writeUInt32LE(body.length, 18)
    lh.writeUInt32LE(e.data.length, 22)
    lh.writeUInt16LE(name.length, 26)
    lh.writeUInt16LE(0, 28)
    local.push(lh, name, body)
    const ch = Buffer.alloc(46)
    ch.writeUInt32LE(0x02014b50, 0)
    ch.writeUInt16LE(20, 4)
    ch.writeUInt16LE(20, 6)
    ch.writeUInt16LE(0, 8)
    ch.writeUInt16LE(method, 10)
    ch.writeUInt32LE(0, 12)
    ch.writeUInt32LE(crc, 16)
    ch.writeUInt32LE(body.length, 20)
    ch.writeUInt32LE(e.data.length, 24)
    ch.writeUInt16LE(name.length, 28)
    ch.writeUInt32LE(offset, 42)
    central.push(ch, name)
    offset += 30 + name.length + body.length
  }
  const cd = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(cd.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([prefix, ...local, cd, end])
}

/** The 8-byte header of an artifact bundle (`SYSB`, version 2). */
export const SYSB = Buffer.from([0x53, 0x59, 0x53, 0x42, 2, 0, 0, 0])

/** An artifact bundle of the given files, with a manifest listing them. */
export function artifactBundle(
  files: Record<
    string,
    { type: string; url: string; headers?: Record<string, string>; data: Buffer }
  >,
  opts: { manifest?: boolean } = {},
): Buffer {
  const manifest = {
    files: Object.fromEntries(
      Object.entries(files).map(([path, f]) => [
        path,
        { type: f.type, url: f.url, headers: f.headers ?? {} },
      ]),
    ),
  }
  const entries: ZipEntry[] = Object.entries(files).map(([name, f]) => ({
    name,
    data: f.data,
    deflate: true,
  }))
  if (opts.manifest !== false)
    entries.unshift({ name: 'manifest.json', data: Buffer.from(JSON.stringify(manifest)) })
  return zip(entries, SYSB)
}
