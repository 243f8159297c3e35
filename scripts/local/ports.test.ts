import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { assertPortFree, freePort, isPortFree, PortInUseError } from './ports';

describe('ports', () => {
  it('tells a busy port from a free one and names the variable that moves the service', async () => {
    const port = await freePort();
    expect(await isPortFree(port)).toBe(true);
    const srv = net.createServer();
    await new Promise<void>((r) => srv.listen(port, '127.0.0.1', () => r()));
    try {
      expect(await isPortFree(port)).toBe(false);
      const err = await assertPortFree(port, 'API_PORT', 'API (serverless-offline)').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PortInUseError);
      expect((err as Error).message).toContain(`Port ${port} (API (serverless-offline)) is already in use`);
      expect((err as Error).message).toContain('API_PORT=<port> npm start');
    } finally {
      await new Promise((r) => srv.close(r));
    }
  });
});
