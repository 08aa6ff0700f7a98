/**
 * A Postgres wire-protocol server in front of ONE PGlite instance that is safe for many concurrent client
 * connections (the Effect SQL pool and pg-boss's pool).
 *
 * Why not `PGLiteSocketServer` (@electric-sql/pglite-socket 0.2.17): PGlite is a single backend session,
 * and that server interleaves the messages of different connections one message at a time. With the
 * extended protocol (Parse/Bind/Execute/Sync) another connection's Bind replaces the unnamed portal in
 * between, so results get mixed up or the protocol desyncs ("Unexpected ErrorResponse after
 * ErrorResponse") as soon as two connections are busy at once.
 *
 * Invariant kept here: the session belongs to one connection at a time, from its first message until
 * PGlite answers ReadyForQuery with status idle ('I', i.e. not inside a transaction block) and that
 * connection has no complete message left in its buffer, or others are waiting (then it queues again behind them). A connection inside a transaction keeps the
 * session until COMMIT/ROLLBACK; the others wait in FIFO order. A connection that goes away while owning
 * the session is cleaned up with Sync + ROLLBACK before the next one runs (exactly once).
 *
 * Liveness: an owner that sits idle while holding the session (inside a transaction, or in the middle of
 * an extended-protocol exchange without Sync) blocks every other connection, which a real server would
 * not do. So while another connection waits, such an owner may stay idle for at most
 * `idleInTransactionTimeoutMs`; then it is terminated the way PostgreSQL's
 * idle_in_transaction_session_timeout does it (FATAL 25P03, connection closed, transaction rolled back)
 * and the session goes to the next connection. An owner that is running a statement is never cut.
 *
 * In-process clients: `connect()` hands out the client end of an in-memory stream pair whose other end is served
 * exactly like a socket (same ownership rules, same limits). This process's Effect SQL pool uses it, so a statement
 * costs no socket write, no loopback TCP and no wake-up on either side; other clients (pg-boss, psql) use the port.
 *
 * Not supported: LISTEN/NOTIFY (notifications of a single shared session cannot be routed), query cancel
 * (PGlite gives every connection the same BackendKeyData; a CancelRequest just closes its own socket).
 */
import { createServer, type Server, Socket } from "node:net"
import { Duplex } from "node:stream"
import type { PGlite } from "@electric-sql/pglite"

const SSL_REQUEST = 80877103
const CANCEL_REQUEST = 80877102
const GSSENC_REQUEST = 80877104
const READY_FOR_QUERY = 0x5a // 'Z'
const TERMINATE = 0x58 // 'X'
const IDLE = 0x49 // 'I'
/** Frontend messages after which the backend answers ReadyForQuery: Sync, Query, FunctionCall, CopyDone, CopyFail. */
const UNIT_END = new Set([0x53, 0x51, 0x46, 0x63, 0x66])

/** Follows a backend message stream chunk by chunk and remembers the status of the last ReadyForQuery. */
class ReadyScanner {
  private header: Buffer = Buffer.alloc(0)
  private remaining = 0
  private type = 0
  private first = false
  status: number | undefined

  push(chunk: Uint8Array): void {
    let i = 0
    while (i < chunk.length) {
      if (this.remaining > 0) {
        if (this.type === READY_FOR_QUERY && this.first) this.status = chunk[i]
        this.first = false
        const n = Math.min(this.remaining, chunk.length - i)
        this.remaining -= n
        i += n
        continue
      }
      const need = 5 - this.header.length
      const take = chunk.subarray(i, i + need)
      this.header = Buffer.concat([this.header, take])
      i += take.length
      if (this.header.length === 5) {
        this.type = this.header[0]!
        this.remaining = this.header.readInt32BE(1) - 4
        this.first = true
        this.header = Buffer.alloc(0)
      }
    }
  }
}

/**
 * One end of an in-process connection. What one end writes arrives at the other end on a later turn of the event loop
 * (`setImmediate`), as a socket's data would: never inside the writer's call (PGlite's answer callback would run the
 * client's next statement re-entrantly, and a chain of such turns kept the HTTP server from reading new requests), in
 * write order, a corked batch as one chunk. Ending one end ends the other; closing one closes the other.
 */
class InProcessEnd extends Duplex {
  peer: InProcessEnd | undefined

  constructor() {
    super({ allowHalfOpen: false })
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.deliver(chunk, callback)
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, callback: (error?: Error | null) => void): void {
    this.deliver(Buffer.concat(chunks.map((c) => c.chunk)), callback)
  }

  private deliver(chunk: Buffer, callback: (error?: Error | null) => void): void {
    setImmediate(() => {
      this.peer?.push(chunk)
      callback()
    })
  }

  override _final(callback: (error?: Error | null) => void): void {
    setImmediate(() => {
      this.peer?.push(null)
      callback()
    })
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const peer = this.peer
    this.peer = undefined
    if (peer !== undefined) {
      peer.peer = undefined
      setImmediate(() => peer.destroy())
    }
    callback(error)
  }
}

const inProcessPair = (): readonly [InProcessEnd, InProcessEnd] => {
  const a = new InProcessEnd()
  const b = new InProcessEnd()
  a.peer = b
  b.peer = a
  return [a, b]
}

/** A FATAL ErrorResponse ('E'): the connection is closed right after it. */
const fatalResponse = (code: string, message: string): Buffer => {
  const fields = Buffer.concat([
    Buffer.from("SFATAL\0", "utf8"),
    Buffer.from("VFATAL\0", "utf8"),
    Buffer.from(`C${code}\0`, "utf8"),
    Buffer.from(`M${message}\0`, "utf8"),
    Buffer.from([0]),
  ])
  const header = Buffer.alloc(5)
  header[0] = 0x45 // 'E'
  header.writeInt32BE(fields.length + 4, 1)
  return Buffer.concat([header, fields])
}

const simpleMessage = (type: string, body: Buffer = Buffer.alloc(0)): Uint8Array => {
  const out = Buffer.alloc(5 + body.length)
  out[0] = type.charCodeAt(0)
  out.writeInt32BE(body.length + 4, 1)
  body.copy(out, 5)
  return out
}

/** Default limit for an owner idle inside a transaction while others wait (see the module comment). */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 5_000
export const TOO_MANY_CONNECTIONS_MESSAGE = "too many connections to the embedded database"

export interface PgliteBridgeOptions {
  readonly host?: string
  /** 0 = a free port. */
  readonly port?: number
  readonly maxConnections?: number
  /** How long an owner may hold the session idle (in a transaction) while others wait; 0 = forever. */
  readonly idleInTransactionTimeoutMs?: number
  /** Told when an idle owner is terminated (for the log). */
  readonly onIdleTermination?: (info: { readonly idleMs: number; readonly waiting: number }) => void
}

export class PgliteBridge {
  private readonly db: PGlite
  private readonly options: PgliteBridgeOptions
  private server: Server | undefined
  private readonly connections = new Set<Connection>()
  private owner: Connection | undefined
  private readonly waiting: Array<{ conn: Connection; resolve: () => void }> = []
  /** The owner holds the session without running anything and has nothing complete to send. */
  private ownerIdleSince: number | undefined
  private watchdog: NodeJS.Timeout | undefined
  port = 0

  constructor(db: PGlite, options: PgliteBridgeOptions = {}) {
    this.db = db
    this.options = options
  }

  async start(): Promise<number> {
    await this.db.waitReady
    const server = createServer((socket) => this.accept(socket))
    this.server = server
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(this.options.port ?? 0, this.options.host ?? "127.0.0.1", () => {
        server.off("error", reject)
        resolve()
      })
    })
    const address = server.address()
    this.port = typeof address === "object" && address !== null ? address.port : 0
    return this.port
  }

  async stop(): Promise<void> {
    const server = this.server
    this.server = undefined
    this.disarm()
    for (const conn of this.connections) conn.socket.destroy()
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()))
    // Let any in-flight PGlite call finish before the caller closes the database.
    await this.db.runExclusive(async () => undefined).catch(() => undefined)
  }

  /**
   * A connection without a socket: the client end of an in-memory stream pair (see the module comment). Closing either
   * end closes the other, as a socket's peer sees a close; ending one ends the other (no half-open connections).
   */
  connect(): Duplex {
    const [client, server] = inProcessPair()
    if (this.server === undefined) {
      // Not started, or stopped: refused like a closed port.
      process.nextTick(() => client.destroy(new Error("the embedded database is not running")))
      return client
    }
    this.accept(server)
    return client
  }

  private accept(socket: Duplex): void {
    if (this.connections.size >= (this.options.maxConnections ?? 64)) {
      socket.end(fatalResponse("53300", TOO_MANY_CONNECTIONS_MESSAGE))
      return
    }
    if (socket instanceof Socket) socket.setNoDelay(true)
    const conn = new Connection(this, socket)
    this.connections.add(conn)
    socket.on("data", (data: Buffer) => conn.receive(data))
    socket.on("error", () => socket.destroy())
    socket.on("close", () => {
      this.connections.delete(conn)
      void conn.closed()
    })
  }

  /** Waits until `conn` owns the session. */
  acquire(conn: Connection): Promise<void> {
    if (this.owner === undefined || this.owner === conn) {
      this.owner = conn
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      this.waiting.push({ conn, resolve })
      this.arm()
    })
  }

  /** Gives the session up (or leaves the queue), handing it to the next waiting connection. */
  release(conn: Connection): void {
    if (this.owner !== conn) {
      const index = this.waiting.findIndex((w) => w.conn === conn)
      if (index !== -1) this.waiting.splice(index, 1)
      return
    }
    this.disarm()
    const next = this.waiting.shift()
    this.owner = next?.conn
    next?.resolve()
  }

  hasWaiters(): boolean {
    return this.waiting.length > 0
  }

  isOwner(conn: Connection): boolean {
    return this.owner === conn
  }

  /** The owner keeps the session: `idle` when it waits for its client, not while it runs a message. */
  holding(conn: Connection, idle: boolean): void {
    if (this.owner !== conn) return
    if (!idle) {
      this.disarm()
      return
    }
    this.ownerIdleSince ??= Date.now()
    this.arm()
  }

  /** Starts the idle-owner clock when an idle owner and a waiting connection coexist. */
  private arm(): void {
    const limit = this.options.idleInTransactionTimeoutMs ?? IDLE_IN_TRANSACTION_TIMEOUT_MS
    const owner = this.owner
    if (this.watchdog !== undefined || limit <= 0 || owner === undefined || this.ownerIdleSince === undefined || this.waiting.length === 0) return
    this.watchdog = setTimeout(() => {
      this.watchdog = undefined
      const since = this.ownerIdleSince
      if (this.owner !== owner || since === undefined || this.waiting.length === 0) return
      this.options.onIdleTermination?.({ idleMs: Date.now() - since, waiting: this.waiting.length })
      void owner.terminate("25P03", "terminating connection due to idle-in-transaction timeout (other connections were waiting for the embedded database)")
    }, limit)
    this.watchdog.unref()
  }

  private disarm(): void {
    this.ownerIdleSince = undefined
    if (this.watchdog !== undefined) clearTimeout(this.watchdog)
    this.watchdog = undefined
  }

  /** Runs one protocol message; streams the answer to `onData`; returns the last ReadyForQuery status seen. */
  async exec(message: Uint8Array, onData: (chunk: Uint8Array) => void): Promise<number | undefined> {
    const scanner = new ReadyScanner()
    await this.db.runExclusive(() =>
      this.db.execProtocolRawStream(message, {
        onRawData: (chunk) => {
          scanner.push(chunk)
          onData(chunk)
        },
      }),
    )
    return scanner.status
  }
}

class Connection {
  private readonly bridge: PgliteBridge
  readonly socket: Duplex
  private buffer: Buffer = Buffer.alloc(0)
  private started = false
  private pumping = false
  private dead = false
  private cleanup: Promise<void> | undefined
  /** Status of the last ReadyForQuery this connection received; undefined before the first one. */
  private status: number | undefined = IDLE

  constructor(bridge: PgliteBridge, socket: Duplex) {
    this.bridge = bridge
    this.socket = socket
  }

  receive(data: Buffer): void {
    this.buffer = this.buffer.length === 0 ? data : Buffer.concat([this.buffer, data])
    void this.pump()
  }

  /**
   * PGlite hands out views of its WebAssembly memory, reused by the next message: a chunk the socket does not send at
   * once (corked, or a full kernel buffer) must be a copy, or the client reads another answer's bytes.
   */
  private write(chunk: Uint8Array): void {
    if (!this.dead && this.socket.writable) this.socket.write(Buffer.from(chunk))
  }

  /** The next complete message (startup-phase messages have no type byte), or undefined. */
  private next(): Buffer | undefined {
    if (!this.started) {
      if (this.buffer.length < 8) return undefined
      const length = this.buffer.readInt32BE(0)
      if (this.buffer.length < length) return undefined
      const message = this.buffer.subarray(0, length)
      this.buffer = this.buffer.subarray(length)
      return message
    }
    if (this.buffer.length < 5) return undefined
    const length = 1 + this.buffer.readInt32BE(1)
    if (this.buffer.length < length) return undefined
    const message = this.buffer.subarray(0, length)
    this.buffer = this.buffer.subarray(length)
    return message
  }

  /**
   * `first` plus the complete messages already buffered after it, up to and including the next message that ends a
   * unit with ReadyForQuery (Sync, Query, FunctionCall, CopyDone, CopyFail): PGlite runs a buffer of several messages
   * in one call, so a prepared statement's Bind/Execute/Sync costs one call instead of three. Stopping at the first
   * unit end keeps the ownership rule exact: only the batch's last message can answer ReadyForQuery.
   */
  private batchFrom(first: Buffer): Buffer {
    if (UNIT_END.has(first[0]!)) return first
    const parts = [first]
    while (this.hasCompleteMessage() && this.buffer[0] !== TERMINATE) {
      const message = this.next()!
      parts.push(message)
      if (UNIT_END.has(message[0]!)) break
    }
    return parts.length === 1 ? first : Buffer.concat(parts)
  }

  private hasCompleteMessage(): boolean {
    if (this.buffer.length < 5) return false
    return this.buffer.length >= 1 + this.buffer.readInt32BE(1)
  }

  private async pump(): Promise<void> {
    if (this.pumping || this.dead) return
    this.pumping = true
    try {
      for (let message = this.next(); message !== undefined && !this.dead; message = this.next()) {
        if (!this.started) {
          const code = message.length >= 8 ? message.readInt32BE(4) : 0
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
            this.write(Buffer.from("N"))
            continue
          }
          if (code === CANCEL_REQUEST) {
            this.socket.end()
            return
          }
          this.started = true
        } else if (message[0] === TERMINATE) {
          this.socket.end()
          return
        } else {
          message = this.batchFrom(message)
        }
        await this.bridge.acquire(this)
        if (this.dead) return
        this.bridge.holding(this, false)
        // The answer's chunks leave in one write (a statement's BindComplete, rows, CommandComplete, ReadyForQuery).
        this.socket.cork()
        let status: number | undefined
        try {
          status = await this.bridge.exec(message, (chunk) => this.write(chunk))
        } finally {
          this.socket.uncork()
        }
        if (this.dead) return // closed() cleans the session up and hands it on
        if (status !== undefined) this.status = status
        else if (message[0] !== undefined && this.started) this.status = undefined // mid-unit (e.g. Parse before Sync)
        const more = this.hasCompleteMessage()
        // At an idle boundary (no transaction open) the session goes to the next waiting connection even when this one
        // has more to run: it queues again behind them. An in-process client answers at once, so it always has more,
        // and would otherwise keep the session while the other connections' requests starve.
        if (this.status === IDLE && (!more || this.bridge.hasWaiters())) this.bridge.release(this)
        else this.bridge.holding(this, !more)
      }
    } catch {
      this.socket.destroy()
    } finally {
      this.pumping = false
    }
  }

  /** Ends the connection from the server side with a FATAL error (as PostgreSQL does), then cleans up. */
  terminate(code: string, message: string): Promise<void> {
    if (!this.dead && this.socket.writable) this.socket.end(fatalResponse(code, message))
    // Unlike end(), destroy() does not wait for the client to close its side.
    setTimeout(() => this.socket.destroy(), 1_000).unref()
    return this.closed()
  }

  /**
   * The client went away (or was terminated): end whatever it left open in the shared session, then hand
   * the session on. Runs once: a second cleanup could roll back the NEXT owner's transaction.
   */
  closed(): Promise<void> {
    this.dead = true
    this.cleanup ??= this.cleanUp()
    return this.cleanup
  }

  private async cleanUp(): Promise<void> {
    if (!this.bridge.isOwner(this)) {
      this.bridge.release(this)
      return
    }
    try {
      if (this.status !== IDLE) {
        let status = await this.bridge.exec(simpleMessage("S"), () => undefined)
        if (status !== IDLE) status = await this.bridge.exec(simpleMessage("Q", Buffer.from("ROLLBACK\0", "utf8")), () => undefined)
      }
    } catch {
      // The database may be closing; nothing more to clean up.
    } finally {
      this.bridge.release(this)
    }
  }
}
