import { describePageApp } from './page-app.ts'

// A new project: `npm init -y`, and React as the page installs it (the
// latest 19.x on the registry); there, too, what a user meets when
// something is wrong (an old Node, a bad PORT, a wrong model ID).
describePageApp({ failures: true })
