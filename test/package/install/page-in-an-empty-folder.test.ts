import { describePageApp } from './page-app.ts'

// A new project: `npm init -y`, and React as the page installs it (the
// latest 19.x on the registry).
describePageApp({})
