/**
 * A minimal zip writer for tests: deflate or store, optional data descriptors (as Go excelize writes
 * WB's files). Not for production: no zip64, no streaming.
 */
import zlib from 'node:zlib';

export interface ZipInput {
  name: string;
  data: Buffer | string;
  /** Default 'deflate'. */
  method?: 'deflate' | 'store';
}

export interface ZipWriteOptions {
  /** Sizes and CRC after the data (general-purpose bit 3) instead of in the local header. */
  dataDescriptors?: boolean;
}

export function writeZip(files: readonly ZipInput[], options: ZipWriteOptions = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const data = typeof file.data === 'string' ? Buffer.from(file.data, 'utf8') : file.data;
    const method = file.method === 'store' ? 0 : 8;
    const body = method === 8 ? zlib.deflateRawSync(data) : data;
    const crc = zlib.crc32(data);
    const name = Buffer.from(file.name, 'utf8');
    const flags = 0x0800 | (options.dataDescriptors ? 0x0008 : 0);
    const dd = options.dataDescriptors === true;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(dd ? 0 : crc, 14);
    local.writeUInt32LE(dd ? 0 : body.length, 18);
    local.writeUInt32LE(dd ? 0 : data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const parts = [local, name, body];
    if (dd) {
      const desc = Buffer.alloc(16);
      desc.writeUInt32LE(0x08074b50, 0);
      desc.writeUInt32LE(crc, 4);
      desc.writeUInt32LE(body.length, 8);
      desc.writeUInt32LE(data.length, 12);
      parts.push(desc);
    }
    const localBytes = Buffer.concat(parts);
    locals.push(localBytes);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += localBytes.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}
