// The page an app's `taskUrls` sends a session with the choose-organization task to (session-tasks-eject-flow,
// whose own Next.js app has `taskUrls={{ 'choose-organization': '/onboarding/choose-organization' }}` and this
// page): Core 3's <TaskChooseOrganization/> alone, back to the home page once the task is done.
import { TaskChooseOrganization } from "@clerk/react-router";

export default function OnboardingChooseOrganization() {
  return <TaskChooseOrganization redirectUrlComplete="/" />;
}
