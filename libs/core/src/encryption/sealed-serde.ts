import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import type { FieldCipher } from "./field-cipher.js";

/** The type suffix of a sealed value, as the Python server's EncryptedSerializer marks its own ("msgpack+aes"). */
const SEALED_SUFFIX = "+aes";

/**
 * LangGraph's serializer with sealing after it: `dumpsTyped` seals the bytes and marks the type
 * `<type>+aes`; `loadsTyped` opens a marked value and passes an unmarked one (written before a key was
 * set) through. For checkpoints and pending writes; checkpoint metadata stays plaintext (history filters
 * read it), so savers use this for those two only.
 */
export function sealedSerde(inner: SerializerProtocol, cipher: FieldCipher, aad: string): SerializerProtocol {
  return {
    async dumpsTyped(data: unknown): Promise<[string, Uint8Array]> {
      const [type, bytes] = await inner.dumpsTyped(data);
      return cipher.sealing ? [`${type}${SEALED_SUFFIX}`, cipher.sealBytes(bytes, aad)] : [type, bytes];
    },
    async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
      if (!type.endsWith(SEALED_SUFFIX)) return inner.loadsTyped(type, data);
      const bytes = typeof data === "string" ? Buffer.from(data, "latin1") : data;
      return inner.loadsTyped(type.slice(0, -SEALED_SUFFIX.length), cipher.openBytes(bytes, aad));
    },
  };
}
