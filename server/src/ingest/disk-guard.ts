import { statfs } from 'node:fs/promises'
import { dirname } from 'node:path'

/**
 * Refuses new data before the disk under the data directory is full: SQLite answers a full disk
 * with SQLITE_FULL mid-transaction, and a nearly full disk also starves the WAL checkpoint.
 * Free space is read every `intervalMs` (one `statfs`, microseconds) rather than per request;
 * the guard clears by itself once space returns. `minFreeBytes` 0 turns it off.
 */
export class DiskGuard {
  private readonly path: string
  private readonly minFreeBytes: number
  private timer: NodeJS.Timeout | undefined
  private low = false
  /** Free bytes at the last check (undefined: not checked, or the path cannot be read). */
  free: number | undefined

  constructor(path: string, minFreeBytes: number) {
    this.path = path
    this.minFreeBytes = minFreeBytes
  }

  /** True while free space is under the threshold. */
  blocked(): boolean {
    return this.low
  }

  /** Reads free space now; a path that does not exist yet is measured at its nearest parent. */
  async check(): Promise<boolean> {
    if (this.minFreeBytes === 0) return false
    let p = this.path
    for (;;) {
      try {
        const s = await statfs(p)
        this.free = s.bavail * s.bsize
        this.low = this.free < this.minFreeBytes
        return this.low
      } catch {
        const up = dirname(p)
        if (up === p) return false
        p = up
      }
    }
  }

  /** Starts the periodic check (unref'd: it never keeps the process alive). */
  start(intervalMs: number): void {
    if (this.minFreeBytes === 0 || this.timer !== undefined) return
    void this.check()
    this.timer = setInterval(() => void this.check(), intervalMs)
    this.timer.unref()
  }

  /** Stops the periodic check. */
  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }
}
