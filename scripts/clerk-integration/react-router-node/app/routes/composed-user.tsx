// /composed/user (composed-components): the profile composed from Core 3's composed exports, the
// sections <UserProfile/> shows on its Account and Security pages, both panels on the one page (no tabs,
// no .cl-userProfile-root).
import { useComposedUi } from "../components/composed";

export default function ComposedUserPage() {
  const ui = useComposedUi();
  if (!ui) return null;
  const {
    UserProfileProvider,
    UserProfileAccountPanel,
    UserProfileProfileSection,
    UserProfileUsernameSection,
    UserProfileEmailSection,
    UserProfilePhoneSection,
    UserProfileSecurityPanel,
    UserProfilePasswordSection,
    UserProfileMfaSection,
    UserProfileDeleteSection,
  } = ui;
  return (
    <UserProfileProvider>
      <UserProfileAccountPanel>
        <UserProfileProfileSection />
        <UserProfileUsernameSection />
        <UserProfileEmailSection />
        <UserProfilePhoneSection />
      </UserProfileAccountPanel>
      <UserProfileSecurityPanel>
        <UserProfilePasswordSection />
        <UserProfileMfaSection />
        <UserProfileDeleteSection />
      </UserProfileSecurityPanel>
    </UserProfileProvider>
  );
}
