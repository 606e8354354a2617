import { useMe } from '../../../data/useMe.ts';

/** Whether the signed-in person is an owner of the workspace they act in (owners take links and reports over). */
export const useIsOwner = () => useMe().data?.role === 'owner';
