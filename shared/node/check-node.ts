// `a2-aws/check-node`: loaded before a project's own TypeScript entry
// (`node --import a2-aws/check-node src/server.ts`), it stops a Node that
// cannot run that file with one line saying what to do, where Node 20 would
// stop on `ERR_UNKNOWN_FILE_EXTENSION ".ts"` and never name the Node it
// needs. It imports and exports nothing and is compiled to plain
// JavaScript, so any Node with `--import` (18.19, 20.6 and newer) runs it;
// on a Node that strips types (22.18 and newer) it does nothing.
//
// `process.features.typescript` is absent before Node 22.10 and `false`
// where type stripping is off (22.10 to 22.17 without the flag).

if (!process.features.typescript) {
  process.stderr.write(
    `a2-aws: this is Node ${process.version} (${process.execPath}), which cannot run TypeScript files as they are: the project needs Node 22.18 or newer. \`npm install --save-dev node@22\` gives the project its own (npm start and npx then run it), or install one (nvm install 22).\n`,
  )
  process.exit(1)
}

// An ES module, as the package's other entry points are.
export {}
