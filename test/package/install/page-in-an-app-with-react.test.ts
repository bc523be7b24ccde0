import { describePageApp } from './page-app.ts'

// An app that has React already, another version than the repo's (issue 23:
// an app on 19.2.9 got a second React under node_modules/a2-aws, and a
// blank page); there, too, every entry point and the package's doubles.
describePageApp({ existingReact: '19.2.9', checkEntryPoints: true })
