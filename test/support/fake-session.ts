// FakeSession is published with the lane spec kit (`a2-aws/test`); the
// controller's tests keep importing it, with their `userMessage`, from here.
export { FakeSession } from '../../shared/testing/lane-spec/fake-session.ts'
export { userMessage } from './conversation.ts'
