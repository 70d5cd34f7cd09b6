#!/usr/bin/env node
// Fails when an exported item of the generated `index.d.ts` — a function, an
// interface or one of its fields, an enum or one of its members, a constant,
// a type — has no JSDoc comment. The comments come from the binding's Rust
// doc comments (`src/*.rs`), so the fix for a failure is a `///` comment on
// that item or field in Rust, then `npm run build:debug`.
//
// Usage: node scripts/check-api-docs.mjs [path/to/index.d.ts]
// Exit status: 0 when every item is documented, 1 otherwise (each missing
// one is named on stderr as `index.d.ts:<line>: <Interface>.<field>`).

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const ts = createRequire(import.meta.url)('typescript')

const file = path.resolve(process.argv[2] ?? path.join(root, 'index.d.ts'))
const text = readFileSync(file, 'utf8')
const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)

/** The text of a node's own JSDoc comments (empty when it has none). */
function jsdoc(node) {
  return (node.jsDoc ?? [])
    .map((doc) => {
      const comment = typeof doc.comment === 'string' ? doc.comment : ts.getTextOfJSDocComment(doc.comment) ?? ''
      const tags = (doc.tags ?? []).map((tag) => tag.getText(source)).join(' ')
      return `${comment} ${tags}`.trim()
    })
    .join(' ')
    .trim()
}

function isExported(node) {
  return (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export) !== 0
}

const missing = []
let checked = 0

function check(node, name) {
  checked += 1
  if (!jsdoc(node)) {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source))
    missing.push(`${path.relative(process.cwd(), file) || file}:${line + 1}: ${name}`)
  }
}

/** The name of a member, property, enum member or declaration. */
function nameOf(node) {
  return node.name ? node.name.getText(source) : ts.SyntaxKind[node.kind]
}

for (const statement of source.statements) {
  if (!isExported(statement)) continue
  if (ts.isVariableStatement(statement)) {
    // A `declare const` statement carries the comment; it declares one name.
    for (const decl of statement.declarationList.declarations) {
      checked += 1
      if (!jsdoc(statement)) {
        const { line } = source.getLineAndCharacterOfPosition(statement.getStart(source))
        missing.push(`${path.relative(process.cwd(), file) || file}:${line + 1}: ${nameOf(decl)}`)
      }
    }
    continue
  }
  const name = nameOf(statement)
  check(statement, name)
  if (ts.isInterfaceDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) {
    for (const member of statement.members) {
      // A class's private constructor or an index signature has no name to document.
      if (!member.name) continue
      check(member, `${name}.${nameOf(member)}`)
    }
  }
}

if (missing.length > 0) {
  console.error(`${missing.length} exported item(s) of ${path.basename(file)} have no doc comment:`)
  for (const m of missing) console.error(`  ${m}`)
  console.error(
    'Document each with a `///` comment on the Rust item or field in src/ (what it means, its unit, when it is absent), then run `npm run build:debug`.',
  )
  process.exit(1)
}
console.log(`${path.basename(file)}: all ${checked} exported items and members have a doc comment`)
