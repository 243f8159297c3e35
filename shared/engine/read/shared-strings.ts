/**
 * The shared strings part (xl/sharedStrings.xml): read through the byte scanner before the sheet, it
 * gives every string's blankness (whether a cell counts a row as data) and the text of the strings kept.
 */
import type { Entry } from 'yauzl';
import type { ReadLimits } from './limits';
import { SLASH } from './xml-bytes';
import { XmlByteScanner } from './xml-scanner';
import type { ZipArchive, ZipStreamOptions } from './zip';

/** Shared strings (xl/sharedStrings.xml): every string's blankness, and the text of the kept ones. */
export interface SharedStrings {
  readonly count: number;
  /** 1 where the string is empty or white space only. */
  readonly blank: Uint8Array;
  /** The string, or undefined when it was not kept (count-only mode). */
  get(index: number): string | undefined;
}

class SharedStringsScanner extends XmlByteScanner implements SharedStrings {
  count = 0;
  blank = new Uint8Array(1024);
  private readonly strings: Array<string | undefined> = [];
  private inSi = false;
  private inRph = false;

  constructor(
    maxCellLength: number,
    private readonly keep: (index: number) => boolean,
  ) {
    super(maxCellLength);
  }

  get(index: number): string | undefined {
    return this.strings[index];
  }

  protected tag(buf: Buffer, start: number, end: number): void {
    const len = this.tagName(buf, start, end);
    if (len < 0) return;
    const close = this.closing;
    const ns = this.nameAt;
    const selfClosing = !close && buf[end - 1] === SLASH;
    const c0 = buf[ns];
    if (len === 2 && c0 === 0x73 && buf[ns + 1] === 0x69) {
      // <si>
      if (close) {
        if (this.inSi) this.endString();
      } else {
        this.resetText();
        this.inRph = false;
        this.inSi = true;
        if (selfClosing) this.endString();
      }
    } else if (len === 1 && c0 === 0x74) {
      // <t>: plain text or one rich-text run; runs concatenate.
      if (!close && !selfClosing && this.inSi && !this.inRph) this.inText = true;
    } else if (len === 3 && c0 === 0x72 && buf[ns + 1] === 0x50 && buf[ns + 2] === 0x68) {
      // <rPh>: phonetic reading, not part of the value.
      this.inRph = !close && !selfClosing;
    }
  }

  private endString(): void {
    this.inSi = false;
    const index = this.count++;
    if (index >= this.blank.length) {
      const grown = new Uint8Array(this.blank.length * 2);
      grown.set(this.blank);
      this.blank = grown;
    }
    this.blank[index] = this.nonWs ? 0 : 1;
    if (this.keep(index)) {
      this.strings.push(this.text());
    } else {
      if (this.rawLen > this.maxCellLength) this.text();
      this.strings.push(undefined);
    }
  }
}

/** Reads the shared strings part, keeping the text of the strings `keep` names (the rest: blankness only). */
export async function readSharedStrings(
  zip: ZipArchive,
  entry: Entry,
  limits: ReadLimits,
  keep: (index: number) => boolean,
  options: ZipStreamOptions,
): Promise<SharedStrings> {
  const scanner = new SharedStringsScanner(limits.maxCellLength, keep);
  for await (const chunk of zip.stream(entry, options)) scanner.feed(chunk);
  return scanner;
}
