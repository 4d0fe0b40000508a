import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Most bytes of a file sent with a form: a photo of up to 10 MB. */
export const maxUploadBytes = 10 * 1024 * 1024;

/** A file sent with a form: its bytes, or `tooLarge` when it went past 10 MB (the rest was dropped). */
export type Upload = { bytes: Buffer; tooLarge?: never } | { tooLarge: true };

const uploads = new WeakMap<FastifyRequest, Map<string, Upload>>();

/** The file sent in the form's field `name`; null when none was chosen. */
export function uploadOf(request: FastifyRequest, name: string): Upload | null {
  return uploads.get(request)?.get(name) ?? null;
}

/*
 * Forms that carry a file (multipart/form-data, @fastify/multipart): their text fields become the
 * body as a urlencoded form's would (a repeated one as a list), so the CSRF check and the form
 * readers take them alike; the file is read into memory, up to 10 MB, and kept apart
 * (`uploadOf`). A file input left empty sends an empty part: no file. Two files per form at most. Registered before
 * anything that reads the body (the text rule's check), so it reads the fields too.
 */
export async function formUploads(app: FastifyInstance): Promise<void> {
  await app.register(fastifyMultipart, {
    attachFieldsToBody: 'keyValues',
    throwFileSizeLimit: false,
    limits: { fileSize: maxUploadBytes, files: 2, fields: 200, fieldSize: 64 * 1024, parts: 202 },
    async onFile(part) {
      const chunks: Buffer[] = [];
      for await (const chunk of part.file) chunks.push(chunk as Buffer);
      if (chunks.length === 0) return;
      const sent = uploads.get(this) ?? new Map<string, Upload>();
      sent.set(part.fieldname, part.file.truncated ? { tooLarge: true } : { bytes: Buffer.concat(chunks) });
      uploads.set(this, sent);
    },
  });
}
