/**
 * A small per-device pool of GPU buffers, reused across calls (ARCHITECTURE.md, WebGPU notes).
 *
 * Each kernel asks for its buffers by role ("lipschitz.records", …); a role keeps one buffer,
 * which is reused while it is large enough and has the same usage, and otherwise replaced by one
 * of the next power-of-two size (capped at the device's maxBufferSize), so a sequence of calls
 * with growing inputs allocates O(log size) times. Work that uses pooled buffers runs through
 * {@linkcode BufferPool.exclusive}, one call at a time per device.
 *
 * @module
 */

/** Buffers by role for one device, with a lock that serialises their users. */
export class BufferPool {
  readonly #device: GPUDevice;
  readonly #buffers = new Map<string, GPUBuffer>();
  #tail: Promise<void> = Promise.resolve();

  /**
   * An empty pool.
   * @param device the device the buffers belong to.
   */
  constructor(device: GPUDevice) {
    this.#device = device;
  }

  /**
   * The buffer for `role`: the pooled one when it has `usage` and at least `size` bytes, else a
   * new one (the old one destroyed) of max(size, next power of two up to maxBufferSize) bytes.
   *
   * @param role a unique name, also the buffer's label.
   * @param usage the GPUBufferUsage flags.
   * @param size the bytes needed (rounded up to a multiple of 4; at least 4).
   * @returns a buffer of at least `size` bytes.
   */
  acquire(role: string, usage: GPUBufferUsageFlags, size: number): GPUBuffer {
    const bytes = Math.max(4, Math.ceil(size / 4) * 4);
    const pooled = this.#buffers.get(role);
    if (pooled !== undefined && pooled.usage === usage && pooled.size >= bytes) return pooled;
    pooled?.destroy();
    const rounded = Math.min(2 ** Math.ceil(Math.log2(bytes)), this.#device.limits.maxBufferSize);
    const buffer = this.#device.createBuffer({
      label: role,
      size: Math.max(bytes, Math.floor(rounded / 4) * 4),
      usage,
    });
    this.#buffers.set(role, buffer);
    return buffer;
  }

  /**
   * Runs `work` after every earlier `exclusive` call on this pool has settled, so two calls never
   * share a pooled buffer at the same time.
   *
   * @param work the GPU work using pooled buffers.
   * @returns what `work` returns.
   */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const before = this.#tail;
    let release = () => {};
    this.#tail = new Promise<void>((resolve) => release = resolve);
    await before;
    try {
      return await work();
    } finally {
      release();
    }
  }
}

const pools = new WeakMap<GPUDevice, BufferPool>();

/**
 * The device's buffer pool, created on first use.
 *
 * @param device the device.
 * @returns its pool.
 */
export function bufferPool(device: GPUDevice): BufferPool {
  let pool = pools.get(device);
  if (pool === undefined) {
    pool = new BufferPool(device);
    pools.set(device, pool);
  }
  return pool;
}
