/**
 * A strict RFC 4180 reader for the export tests: CRLF record separators, quoted fields with doubled quotes. Throws on
 * anything RFC 4180 does not allow (a bare quote inside an unquoted field, a lone LF, text after a closing quote), so a
 * test that parses an export also proves the export is well formed.
 */
export const parseCsv = (text: string): Array<Array<string>> => {
  const records: Array<Array<string>> = []
  let field = ""
  let record: Array<string> = []
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text[i]!
    if (c === '"' && field === "") {
      // quoted field
      i++
      for (;;) {
        if (i >= n) throw new Error("unterminated quoted field")
        const q = text[i]!
        if (q === '"') {
          if (text[i + 1] === '"') {
            field += '"'
            i += 2
            continue
          }
          i++
          break
        }
        field += q
        i++
      }
      const next = text[i]
      if (next !== "," && next !== "\r" && next !== undefined) throw new Error(`text after a closing quote at ${i}`)
      continue
    }
    if (c === ",") {
      record.push(field)
      field = ""
      i++
      continue
    }
    if (c === "\r") {
      if (text[i + 1] !== "\n") throw new Error(`CR without LF at ${i}`)
      record.push(field)
      records.push(record)
      record = []
      field = ""
      i += 2
      continue
    }
    if (c === "\n") throw new Error(`bare LF at ${i}`)
    if (c === '"') throw new Error(`quote inside an unquoted field at ${i}`)
    field += c
    i++
  }
  if (field !== "" || record.length > 0) {
    record.push(field)
    records.push(record)
  }
  return records
}
